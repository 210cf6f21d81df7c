// Package arch is a test-only package holding the house's guards: the
// import layers (which of windowlab's packages each may import) and the
// size limits (the view's root model, functions, files and the root
// folder). Its tests read the whole module's source from its root with
// go/parser; it has no code of its own and nothing imports it.
package arch
