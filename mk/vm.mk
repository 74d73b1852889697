# owned by the vm part
