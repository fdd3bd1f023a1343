# The test command of the README: installs what the tests need, then runs every test.
GO ?= go

.PHONY: test deps vet fmt bench proto build lint

# staticcheck's checks but those on the wording of comments and error strings (which follow
# gdb's and the protocol documents' words here).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
STATICCHECK_CHECKS ?= all,-ST1000,-ST1003,-ST1005,-ST1016,-ST1020,-ST1021,-ST1022

test: deps
	$(GO) vet ./...
	cd bench && $(GO) vet ./...
	$(MAKE) lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -count=1 -timeout 15m ./...

deps:
	./scripts/deps.sh

lint:
	$(GO) run $(STATICCHECK) -checks '$(STATICCHECK_CHECKS)' ./...
	cd bench && $(GO) run $(STATICCHECK) -checks '$(STATICCHECK_CHECKS)' ./...

build:
	$(GO) build -o bin/polydbg ./cmd/polydbg

bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem

# Regenerates the committed gRPC code of the Aether front end from protocol/aether/aether.proto.
# Needs protoc (Debian protobuf-compiler) and, from the Go module proxy,
# protoc-gen-go and protoc-gen-go-grpc (scripts/deps.sh installs them).
PROTOC_GEN_GO_VERSION ?= v1.36.11
PROTOC_GEN_GO_GRPC_VERSION ?= v1.6.0
proto:
	GOBIN=$$($(GO) env GOPATH)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$$($(GO) env GOPATH)/bin $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc -I protocol/aether --go_out=. --go_opt=module=github.com/polydbg/polydbg \
		--go-grpc_out=. --go-grpc_opt=module=github.com/polydbg/polydbg protocol/aether/aether.proto
