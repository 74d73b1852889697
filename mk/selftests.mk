# owned by the selftests part
