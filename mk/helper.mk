# owned by the helper part
