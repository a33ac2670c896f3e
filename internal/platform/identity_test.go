package platform_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// registerAnswer is registerMachine's answer as the registerMachine
// operation selects it.
type registerAnswer struct {
	RegisterMachine struct {
		Machine *struct {
			MachineID string
			Simulated bool
		}
		UserErrors []struct{ Field, Code string }
	}
}

// register sends registerMachine for machine uid with gpus (uuid and
// whether it is simulated) through the API, as the agent does.
func register(t *testing.T, agent *platformtest.Client, uid string, gpus map[string]bool) registerAnswer {
	t.Helper()
	list := []any{}
	for uuid, simulated := range gpus {
		list = append(list, map[string]any{"uuid": uuid, "index": len(list), "name": "NVIDIA H100 80GB HBM3", "simulated": simulated})
	}
	var out registerAnswer
	agent.MustDo(&out, registerMachine, map[string]any{"i": map[string]any{"machineId": uid, "hostname": "host-" + uid, "agentVersion": "0.1.0", "gpus": list}})
	return out
}

// kindsOf lists the kinds of c's notifications, newest first.
func kindsOf(t *testing.T, c *platformtest.Client) []string {
	t.Helper()
	var out struct {
		Notifications struct {
			Edges []struct{ Node struct{ Kind string } }
		}
	}
	c.MustDo(&out, `{ notifications(first: 100) { edges { node { kind } } } }`, nil)
	var kinds []string
	for _, e := range out.Notifications.Edges {
		if e.Node.Kind != "WELCOME" && e.Node.Kind != "APPLICATION_APPROVED" {
			kinds = append(kinds, e.Node.Kind)
		}
	}
	return kinds
}

// Issue 24, point 4, through the public API: a GPU UUID registered on a
// second machine of the same provider is refused with TAKEN at its uuid;
// the provider's machines show the GPU once; the provider and the admins
// are told once however often the agent retries; the server keeps serving.
func TestAGpuUUIDIsOneGpuAcrossThePlatform(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "mover")
		admin := adminClient(t, s, "Reviewer")
		agent := s.NewAPIClient(t, p.AgentToken)
		first := register(t, agent, "ident-machine-a", map[string]bool{"GPU-ident-1": true})
		require.Empty(t, first.RegisterMachine.UserErrors)

		for range 3 {
			second := register(t, agent, "ident-machine-b", map[string]bool{"GPU-ident-1": true})
			require.Nil(t, second.RegisterMachine.Machine)
			require.Equal(t, []struct{ Field, Code string }{{"input.gpus.0.uuid", "TAKEN"}}, second.RegisterMachine.UserErrors)
		}

		var mine struct {
			MyProvider struct {
				Machines []struct {
					MachineID string
					Gpus      []struct{ UUID string }
				}
			}
		}
		p.User.MustDo(&mine, `{ myProvider { machines { machineId gpus { uuid } } } }`, nil)
		require.Len(t, mine.MyProvider.Machines, 1, "the refused machine is not registered")
		require.Equal(t, "ident-machine-a", mine.MyProvider.Machines[0].MachineID)
		require.Equal(t, []struct{ UUID string }{{"GPU-ident-1"}}, mine.MyProvider.Machines[0].Gpus)

		require.Equal(t, []string{fleet.KindGpuTaken}, kindsOf(t, p.User))
		require.Equal(t, []string{fleet.KindGpuTakenReview}, kindsOf(t, admin))

		moved := register(t, agent, "ident-machine-b", map[string]bool{"GPU-ident-2": true})
		require.Empty(t, moved.RegisterMachine.UserErrors, "the server goes on serving the provider")
	})
}

// Issue 24, point 4, and the production default: a server started as
// gpunex serve is without --demo refuses an agent with simulated GPUs at
// registration (INVALID at the GPU's simulated field), tells the provider
// and the admins, and never lists a simulated machine, even one registered
// before the rule.
func TestAProductionServerRefusesSimulatedAgentsAndListsNoSimulatedMachine(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{Production: true}, func(t *testing.T, s *platformtest.Server) {
		require.False(t, s.Platform.Fleet.Config().AllowSimulated, "the production default")
		p := s.NewProvider(t, "simulator")
		admin := adminClient(t, s, "Reviewer")
		agent := s.NewAPIClient(t, p.AgentToken)

		for range 2 {
			sim := register(t, agent, "prod-sim-machine", map[string]bool{"GPU-prod-sim-0": true})
			require.Nil(t, sim.RegisterMachine.Machine)
			require.Equal(t, []struct{ Field, Code string }{{"input.gpus.0.simulated", "INVALID"}}, sim.RegisterMachine.UserErrors)
		}
		n, err := s.Platform.DB.NewSelect().Model((*models.Machine)(nil)).Count(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "nothing registered")
		require.Equal(t, []string{fleet.KindSimulatedRefused}, kindsOf(t, p.User))
		require.Equal(t, []string{fleet.KindSimulatedRefusedReview}, kindsOf(t, admin))

		// Real hardware is listed; the same machine marked simulated (as
		// the incident's were, registered before the rule) is not.
		real := register(t, agent, "prod-real-machine", map[string]bool{"GPU-prod-real-0": false})
		require.Empty(t, real.RegisterMachine.UserErrors)
		m, err := s.Platform.Fleet.Machines(context.Background(), p.ID)
		require.NoError(t, err)
		require.Len(t, m, 1)
		listMachine(t, s, p, m[0], 90, 2_000_000)
		c := customer(t, s, "renter")
		var list marketplaceData
		c.MustDo(&list, marketplaceQuery, nil)
		require.Len(t, list.Marketplace.Edges, 1)

		_, err = s.Platform.DB.NewUpdate().Model((*models.Machine)(nil)).Set("simulated = ?", true).Where("machine_uid = ?", "prod-real-machine").Exec(context.Background())
		require.NoError(t, err)
		c.MustDo(&list, marketplaceQuery, nil)
		require.Empty(t, list.Marketplace.Edges, "a simulated machine is never listed outside the demo world")
		var started struct{ StartRental rentalPayload }
		c.MustDo(&started, startRentalMutation, map[string]any{"input": map[string]any{"model": "H100_SXM_80GB",
			"gpuCount": 1, "image": "docker.io/library/python:3.12"}})
		require.Nil(t, started.StartRental.Rental, "nor rented, so never billed")
		require.Equal(t, "UNAVAILABLE", started.StartRental.UserErrors[0].Code)
	})
}
