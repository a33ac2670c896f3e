package models

import (
	"io"
	"strconv"

	"github.com/gpunex/gpunex/internal/fault"
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
func (r Role) IsValid() bool {
	switch r {
	case RoleCustomer, RoleProvider, RoleAdmin:
		return true
	}
	return false
}

// String returns the role's name.
func (r Role) String() string { return string(r) }

// UnmarshalGQL reads a Role from its GraphQL enum value.
func (r *Role) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fault.E(fault.Invalid, "role must be a string")
	}
	*r = Role(s)
	if !r.IsValid() {
		return fault.E(fault.Invalid, "%s is not a valid Role", s)
	}
	return nil
}

// MarshalGQL writes r as a GraphQL enum value.
func (r Role) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(string(r)))
}
