# The test command of the README: installs what the tests need, then runs every test.
GO ?= go

.PHONY: test deps vet fmt bench proto build

test: deps
	$(GO) vet ./...
	cd bench && $(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -count=1 -timeout 15m ./...

deps:
	./scripts/deps.sh

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
