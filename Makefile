# The test command of the README: installs what the tests need, then runs every test.
GO ?= go

.PHONY: test deps vet fmt bench proto build

test: deps
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -count=1 -timeout 15m ./...

deps:
	./scripts/deps.sh

build:
	$(GO) build -o bin/polydbg ./cmd/polydbg

bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem
