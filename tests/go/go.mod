module gorender

go 1.19

require github.com/blang/semver v0.0.0

// Debian's golang-github-blang-semver-dev 4.0.0 (the controller's blang/semver v4, whose
// v4/ directory it ships without a go.mod): the tests build offline.
replace github.com/blang/semver => /usr/share/gocode/src/github.com/blang/semver
