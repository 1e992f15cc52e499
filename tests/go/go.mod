module gorender

go 1.24

require github.com/blang/semver/v4 v4.0.0
