// Package provider is the provider: the account an approved applicant
// becomes, and the root every provider feature hangs from (machines
// today; benchmarks, prices, schedules, earnings, payouts and reliability
// next), as myProvider is in the schema.
//
// Onboarding creates a provider when an admin approves an application
// (Create, inside the approval's transaction). This package owns the
// provider's agent tokens: creating one (its name, the limit on active
// tokens) and revoking one are its operations, each the only one there
// is. Package auth owns what makes a token a credential: the secret's
// form and hash (auth.NewAgentSecret), authenticating a request with it,
// and dropping a revoked token on every replica
// (auth.Service.AgentTokenRevoked). This package is also where the one
// line that installs the agent is made (the installer's path is the installer's,
// given as Config.InstallCommand by the platform, so this domain package
// does not import the installer). The command holds no token: the
// installer asks for it, or reads it from a file.
//
// An active token's name is unique per provider, ignoring case (a partial
// unique index backs the check against concurrent creations). A token's
// last use is recorded here, told by auth of every request the token
// authenticates, and written at most once a minute per token
// (LastUseInterval), so heartbeats do not each write a row; the list of
// tokens counts the machines that last registered with each.
package provider
