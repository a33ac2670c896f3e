package platform_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/platform/platformtest"
)

// aliasedMarkRead is one operation of n markNotificationsRead fields.
func aliasedMarkRead(n int) string {
	var b strings.Builder
	b.WriteString("mutation {")
	for i := range n {
		fmt.Fprintf(&b, ` m%d: markNotificationsRead { updated userErrors { code } }`, i)
	}
	b.WriteString(" }")
	return b.String()
}

const unreadCount = `{ notifications { unreadCount } }`

// Point 5 of issue 9, end to end: one request of aliased mutations past
// the write limit (60 a minute) is refused whole with RATE_LIMITED and
// changes nothing, also through fragments; a user within the limit, and
// another user at the same address, are served; the flooder stays
// refused for the rest of the window.
func TestOneUserCannotFloodWithAliasedMutations(t *testing.T) {
	t.Parallel()
	platformtest.Each(t, platformtest.Options{}, func(t *testing.T, s *platformtest.Server) {
		ada, bob := s.NewAPIClient(t, ""), s.NewAPIClient(t, "")
		ada.SignUp(platformtest.UniqueEmail("ada"), "correct horse battery", "Ada")
		bob.SignUp(platformtest.UniqueEmail("bob"), "correct horse battery", "Bob")
		unread := func(c *platformtest.Client) int {
			var out struct{ Notifications struct{ UnreadCount int } }
			c.MustDo(&out, unreadCount, nil)
			return out.Notifications.UnreadCount
		}
		require.Equal(t, 1, unread(ada), "the welcome notification")

		for _, doc := range []string{
			aliasedMarkRead(61),
			// 8 spreads of a fragment of 8 fields: 64 writes.
			"mutation { ...A ...A ...A ...A ...A ...A ...A ...A } fragment A on Mutation { " +
				strings.TrimSuffix(strings.TrimPrefix(aliasedMarkRead(8), "mutation {"), " }") + " }",
		} {
			r := ada.Do(doc, nil)
			require.Equal(t, []string{"RATE_LIMITED"}, r.Codes(), "%.60s…", doc)
			require.True(t, len(r.Data) == 0 || string(r.Data) == "null", "no mutation ran: %s", r.Data)
			require.Equal(t, 1, unread(ada), "nothing changed")
		}
		// Refused writes count: ada is over the limit for this minute.
		r := ada.Do(aliasedMarkRead(1), nil)
		require.Equal(t, []string{"RATE_LIMITED"}, r.Codes(), "the flooder stays refused this minute")
		require.Equal(t, 1, unread(ada), "reads are not limited")

		r = bob.Do(aliasedMarkRead(60), nil)
		require.Empty(t, r.Errors, "60 writes in one request are within the limit")
		require.Equal(t, 0, unread(bob), "bob's writes ran")
	})
}
