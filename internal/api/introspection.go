package api

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/gpunex/gpunex/internal/fault"
)

// introspectionFields are the root fields of introspection.
var introspectionFields = map[string]bool{"__schema": true, "__type": true}

// introspectionOff refuses, with BAD_REQUEST and before anything runs, an
// operation that asks for __schema or __type where introspection is
// disabled (--no-introspection). gqlgen would run it and answer each
// such field with an untyped error, an INTERNAL one per alias, each
// logged.
type introspectionOff struct{}

var (
	_ graphql.HandlerExtension        = introspectionOff{}
	_ graphql.OperationContextMutator = introspectionOff{}
)

func (introspectionOff) ExtensionName() string                   { return "IntrospectionOff" }
func (introspectionOff) Validate(graphql.ExecutableSchema) error { return nil }

func (introspectionOff) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if !oc.DisableIntrospection || oc.Operation == nil {
		return nil
	}
	if countRootFields(oc, 1, func(name string) bool { return introspectionFields[name] }) > 0 {
		return coded(fault.BadRequest, gqlerror.Errorf("introspection is disabled on this server"))
	}
	return nil
}
