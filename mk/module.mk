# owned by the module part
