module github.com/hookproof/hookproof/go

go 1.22

require github.com/dlclark/regexp2 v1.12.0
