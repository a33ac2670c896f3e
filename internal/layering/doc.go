// Package layering holds no code: its test states the dependency rules of
// the module and checks every package's imports against them (go list), so
// a wrong import fails `go test ./...` with its name, "rule: package →
// import".
//
// # The rules
//
//  1. The agent imports nothing of the server's. The agent side is agent/...
//     and cmd/gpunex-agent; the server's packages are internal/...,
//     resolvers, graph, models, frontend and cmd/gpunex. Three leaf
//     packages under internal/ are shared by design and allowed:
//     internal/clock (the injected clock), internal/catalog (the
//     supported-model table the agent matches NVML names against) and
//     internal/await (how a test waits, for both sides' tests). Rule 2
//     keeps them leaves. This
//     rule covers the agent's tests too: the agent is tested without the
//     server (internal/e2e tests the two together).
//  2. A package both sides share imports only the standard library, so
//     sharing it never drags one side's code into the other.
//  3. The server imports from the agent tree only the protocol package
//     (agent/protocol, the messages both sides encode and decode). The one
//     exception is internal/demo: the demo world's in-process machines are
//     agents, so it links the agent's client and simulator.
//  4. Only cmd/gpunex imports internal/demo, so the server proper never
//     links an agent.
//  5. Domain packages (internal/* except the HTTP layer internal/api, the
//     assembly internal/platform and internal/demo, the installer, the
//     end-to-end tests and the test helper packages, whose names end in
//     "test") never import the HTTP layer, the installer, resolvers,
//     generated code (graph, graph/model) or the assembly.
//  6. models imports only leaf packages: the standard library, bun (the
//     models are bun tables), gqlgen's graphql package (the custom scalars
//     GraphQL binds to are marshalled there, as gqlgen prescribes) and
//     packages of this module that import no package of this module (today
//     internal/fault, whose codes a scalar's parse error must carry, and
//     agent/protocol, the agent's messages, which GraphQL binds too). A
//     module package is allowed only while it is a leaf, so models can
//     never reach a service through it; a list of names would not say why.
//
// Rules 1 and 3 to 6 look at direct imports; since every package of the
// module is checked, an indirect path is caught at its first wrong edge.
// Apart from rule 1, only the packages' own (non-test) imports are
// checked: those are what the binaries link.
//
// Rule 7 is about arithmetic, not imports: money is models.USDC (int64
// micro-USDC) and no code of the module converts it to a float
// (money_test.go type-checks the module's packages and names every
// float32 or float64 conversion of a models.USDC value).
//
// The test also checks that cmd/gpunex depends on no package outside the
// standard library with cgo files, so `CGO_ENABLED=0 go build ./cmd/gpunex`
// gives a static binary (internal/e2e's image test builds it that way and
// reads its ELF headers).
package layering
