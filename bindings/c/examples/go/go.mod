module mcpgen.example/check

go 1.19
