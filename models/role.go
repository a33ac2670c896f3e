package models

import (
	"io"
	"slices"
)

// Role is what a user may do on the platform.
type Role string

// The roles. Every new account is a customer; an approved application adds
// provider; admins are created with `gpunex user create --admin`.
const (
	RoleCustomer Role = "CUSTOMER"
	RoleProvider Role = "PROVIDER"
	RoleAdmin    Role = "ADMIN"
)

// AllRoles lists every role in a stable order.
var AllRoles = []Role{RoleCustomer, RoleProvider, RoleAdmin}

// IsValid reports whether r is one of the defined roles.
func (r Role) IsValid() bool { return slices.Contains(AllRoles, r) }

// String returns the role's name.
func (r Role) String() string { return string(r) }

// UnmarshalGQL reads a Role from its GraphQL enum value.
func (r *Role) UnmarshalGQL(v any) (err error) {
	*r, err = unmarshalEnum(v, AllRoles, "Role")
	return err
}

// MarshalGQL writes r as a GraphQL enum value.
func (r Role) MarshalGQL(w io.Writer) { marshalEnum(w, r) }
