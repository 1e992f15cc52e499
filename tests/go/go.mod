module gorender

go 1.19
