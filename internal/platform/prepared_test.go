package platform_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/api"
	"github.com/gpunex/gpunex/internal/fleet"
	"github.com/gpunex/gpunex/internal/platform/platformtest"
	"github.com/gpunex/gpunex/models"
)

// answer is what a client sees of one response.
type answer struct {
	Status      int
	ContentType string
	Body        any
}

// postHeartbeat sends a heartbeat body with document doc and the given
// raw variables, as gpunex-agent does (its Accept header, a bearer token).
func postHeartbeat(t *testing.T, s *platformtest.Server, token, accept, doc, operationName, variables string) answer {
	t.Helper()
	var body bytes.Buffer
	quoted, _ := json.Marshal(doc)
	fmt.Fprintf(&body, `{"operationName":%q,"query":%s,"variables":%s}`, operationName, quoted, variables)
	req, err := http.NewRequest(http.MethodPost, s.URL+"/graphql", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	a := answer{Status: res.StatusCode, ContentType: res.Header.Get("Content-Type")}
	require.NoError(t, json.Unmarshal(raw, &a.Body), "body: %s", raw)
	return a
}

// preparedCounts reads gpunex_graphql_prepared_total from /metrics: how
// many heartbeats each path answered.
func preparedCounts(t *testing.T, s *platformtest.Server) (prepared, generic float64) {
	t.Helper()
	res, err := http.Get(s.URL + "/metrics")
	require.NoError(t, err)
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "gpunex_graphql_prepared_total{") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		require.NoError(t, err)
		switch {
		case strings.Contains(line, `path="prepared"`):
			prepared = v
		case strings.Contains(line, `path="generic"`):
			generic = v
		}
	}
	return prepared, generic
}

// TestPreparedHeartbeatAnswersExactlyAsTheGenericExecutor sends every
// heartbeat twice: with the agent's document, which the server prepares,
// and with the same document plus a trailing space, which gqlgen's
// generic executor answers. Status, content type and body must be the
// same, and each must have taken the path the case expects: well-formed
// beats the prepared one, everything unusual the generic one.
func TestPreparedHeartbeatAnswersExactlyAsTheGenericExecutor(t *testing.T) {
	platformtest.Each(t, platformtest.Options{Fleet: fleet.Config{RatePerSecond: 1e9, Burst: 1e9}}, func(t *testing.T, s *platformtest.Server) {
		p := s.NewProvider(t, "prep")
		other := s.NewProvider(t, "prep-other")
		agent := s.NewAPIClient(t, p.AgentToken)
		var reg struct {
			RegisterMachine struct{ Machine struct{ ID string } }
		}
		agent.MustDo(&reg, registerMachine, map[string]any{"i": inventory("prepared-0001", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3")})
		s.NewAPIClient(t, other.AgentToken).MustDo(nil, registerMachine, map[string]any{"i": inventory("prepared-theirs", "NVIDIA L4")})
		agent.MustDo(nil, heartbeat, map[string]any{"i": beatInput("prepared-0001", 10, 2)}) // online

		const agentAccept = "application/graphql-response+json, application/json"
		gpu := func(i int, extra string) string {
			return fmt.Sprintf(`{"uuid":"GPU-prepared-0001-%d","utilizationPct":71,"memoryUsedBytes":6.1e10,"temperatureC":64.5,"powerDrawW":512.25,"smClockMHz":1980,"throttleReasons":["sw_power_cap"],"eccCorrected":0,"eccUncorrected":0,"recentUtilizationPct":[40,55.5,71]%s}`, i, extra)
		}
		beat := func(extra string) string {
			return `{"input":{"machineId":"prepared-0001","gpus":[` + gpu(0, "") + `,` + gpu(1, "") + `]` + extra + `}}`
		}
		now := time.Now().UTC()
		cases := []struct {
			name, token, accept, operationName, variables string
			prepared                                      bool
		}{
			{name: "a full beat", variables: beat(""), prepared: true},
			{name: "a beat with its sample time", variables: beat(`,"at":"` + now.Format(time.RFC3339Nano) + `"`), prepared: true},
			{name: "a replayed beat from an hour ago", variables: beat(`,"at":"` + now.Add(-time.Hour).Format(time.RFC3339) + `"`), prepared: true},
			{name: "no GPUs", variables: `{"input":{"machineId":"prepared-0001","gpus":[]}}`, prepared: true},
			{name: "only the uuid", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0"}]}}`, prepared: true},
			{name: "application/json accepted", accept: "application/json", variables: beat(""), prepared: true},
			{name: "no Accept header", accept: "-", variables: beat(""), prepared: true},
			{name: "any type accepted", accept: "*/*", variables: beat(""), prepared: true},
			{name: "no operation name", operationName: "-", variables: beat(""), prepared: true},
			{name: "absurd telemetry gets user errors", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","utilizationPct":250,"temperatureC":-400}]}}`, prepared: true},
			{name: "an unknown GPU gets a user error", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-nope"}]}}`, prepared: true},
			{name: "an unknown machine", variables: `{"input":{"machineId":"prepared-nope","gpus":[]}}`, prepared: true},
			{name: "another provider's machine", variables: `{"input":{"machineId":"prepared-theirs","gpus":[]}}`, prepared: true},
			{name: "no token", token: "-", variables: beat(""), prepared: true},
			{name: "a user's session token", token: "user", variables: beat(""), prepared: true},
			{name: "a huge clock", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","smClockMHz":9007199254740993}]}}`, prepared: true},
			{name: "empty machine id gets a user error", variables: `{"input":{"machineId":"","gpus":[]}}`, prepared: true},
			{name: "a null telemetry field (nullable)", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","utilizationPct":null}]}}`, prepared: true},
			{name: "a null sample time (nullable)", variables: beat(`,"at":null`), prepared: true},
			{name: "a string that contains null", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","throttleReasons":["null","nullable"]}]}}`, prepared: true},
			{name: "missing machine id", variables: `{"input":{"gpus":[]}}`},
			{name: "missing gpus", variables: `{"input":{"machineId":"prepared-0001"}}`},
			{name: "missing uuid", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"utilizationPct":1}]}}`},
			{name: "null input", variables: `{"input":null}`},
			{name: "null machine id", variables: `{"input":{"machineId":null,"gpus":[]}}`},
			{name: "a null list of a nullable field", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","throttleReasons":null}]}}`, prepared: true},
			{name: "null gpus", variables: `{"input":{"machineId":"prepared-0001","gpus":null}}`},
			{name: "an escaped member name", variables: `{"input":{"machin\u0065Id":"prepared-0001","gpus":[]}}`},
			{name: "null in a non-null list", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","recentUtilizationPct":[1,null]}]}}`},
			{name: "a null GPU", variables: `{"input":{"machineId":"prepared-0001","gpus":[null]}}`},
			{name: "an unknown field", variables: `{"input":{"machineId":"prepared-0001","gpus":[],"colour":"red"}}`},
			{name: "a field in other case", variables: `{"input":{"MachineId":"prepared-0001","gpus":[]}}`},
			{name: "a duplicated field", variables: `{"input":{"machineId":"prepared-theirs","machineId":"prepared-0001","gpus":[]}}`},
			{name: "an extra variable", variables: `{"input":{"machineId":"prepared-0001","gpus":[]},"extra":1}`},
			{name: "no variables", variables: `{}`},
			{name: "variables not an object", variables: `[1]`},
			{name: "a string for a float", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","utilizationPct":"12.5"}]}}`},
			{name: "a string for an int", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","smClockMHz":"1980"}]}}`},
			{name: "a fraction for an int", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","smClockMHz":1980.5}]}}`},
			{name: "a number for a string", variables: `{"input":{"machineId":17,"gpus":[]}}`},
			{name: "one value for a list", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","throttleReasons":"hw_slowdown"}]}}`},
			{name: "a number out of range", variables: `{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","powerDrawW":1e400}]}}`},
			{name: "a date that is not RFC 3339", variables: `{"input":{"machineId":"prepared-0001","gpus":[],"at":"yesterday"}}`},
			{name: "a date in the other format gqlgen takes", variables: `{"input":{"machineId":"prepared-0001","gpus":[],"at":"` + now.Format(time.DateTime) + `"}}`},
			{name: "a boolean as a string", variables: `{"input":{"machineId":"prepared-0001","gpus":[],"goingOffline":"yes"}}`},
			{name: "invalid UTF-8", variables: "{\"input\":{\"machineId\":\"prep-\xff\",\"gpus\":[]}}"},
			{name: "another operation name", operationName: "Other", variables: beat("")},
			{name: "going offline, planned", variables: beat(`,"goingOffline":true`), prepared: true},
			{name: "back online", variables: beat(""), prepared: true},
		}
		for _, c := range cases {
			token := p.AgentToken
			switch c.token {
			case "-":
				token = ""
			case "user":
				token = p.User.Token
			}
			accept := agentAccept
			switch c.accept {
			case "-":
				accept = ""
			case "":
			default:
				accept = c.accept
			}
			name := "Heartbeat"
			switch c.operationName {
			case "-":
				name = ""
			case "":
			default:
				name = c.operationName
			}
			p0, _ := preparedCounts(t, s)
			fast := postHeartbeat(t, s, token, accept, protocol.HeartbeatMutation, name, c.variables)
			p1, g1 := preparedCounts(t, s)
			slow := postHeartbeat(t, s, token, accept, protocol.HeartbeatMutation+" ", name, c.variables)
			p2, g2 := preparedCounts(t, s)
			require.Equal(t, slow, fast, "%s: the prepared document must answer as the generic executor", c.name)
			require.Equal(t, p1, p2, "%s: a document that is not the agent's is never prepared", c.name)
			require.Equal(t, g1, g2, "%s: a document that is not the agent's is never counted", c.name)
			if c.prepared {
				require.Equal(t, p0+1, p1, "%s: should take the prepared path", c.name)
			} else {
				require.Equal(t, p0, p1, "%s: should take the generic path", c.name)
			}
		}

		// A queued command rides the prepared answer as it rides the
		// generic one (ids differ: each is delivered once).
		id, err := models.UnmarshalInt64ID(reg.RegisterMachine.Machine.ID)
		require.NoError(t, err)
		commandIn := func(doc string) (answer, string) {
			cmd, err := s.Platform.Fleet.Enqueue(t.Context(), id, protocol.CommandRunBenchmark, map[string]any{"suite": "quick"})
			require.NoError(t, err)
			return postHeartbeat(t, s, p.AgentToken, agentAccept, doc, "Heartbeat", beat("")), strconv.FormatInt(cmd.ID, 10)
		}
		fast, fastID := commandIn(protocol.HeartbeatMutation)
		slow, slowID := commandIn(protocol.HeartbeatMutation + " ")
		cmds := func(a answer) []any {
			return a.Body.(map[string]any)["data"].(map[string]any)["heartbeat"].(map[string]any)["commands"].([]any)
		}
		require.Len(t, cmds(fast), 1)
		require.Equal(t, fastID, cmds(fast)[0].(map[string]any)["id"])
		require.Equal(t, slowID, cmds(slow)[0].(map[string]any)["id"])
		cmds(fast)[0].(map[string]any)["id"] = slowID
		require.Equal(t, slow, fast)

		// What a prepared beat carries is what the dashboard reads.
		postHeartbeat(t, s, p.AgentToken, agentAccept, protocol.HeartbeatMutation, "Heartbeat",
			`{"input":{"machineId":"prepared-0001","gpus":[{"uuid":"GPU-prepared-0001-0","utilizationPct":77.5,"recentUtilizationPct":[70,77.5]}]}}`)
		var mp struct {
			MyProvider struct {
				Machines []struct {
					MachineID string
					Status    string
					Gpus      []struct {
						UUID      string
						Telemetry *struct {
							UtilizationPct       *float64
							RecentUtilizationPct []float64
						}
					}
				}
			}
		}
		p.User.MustDo(&mp, `{ myProvider { machines { machineId status gpus { uuid telemetry { utilizationPct recentUtilizationPct } } } } }`, nil)
		require.Len(t, mp.MyProvider.Machines, 1)
		m := mp.MyProvider.Machines[0]
		require.Equal(t, "ONLINE", m.Status)
		require.Equal(t, "GPU-prepared-0001-0", m.Gpus[0].UUID)
		require.NotNil(t, m.Gpus[0].Telemetry)
		require.Equal(t, 77.5, *m.Gpus[0].Telemetry.UtilizationPct)
		require.Equal(t, []float64{70, 77.5}, m.Gpus[0].Telemetry.RecentUtilizationPct)
	})
}

// TestPreparedHeartbeatIsRateLimitedAsTheGenericOne: the limiter sits
// behind both paths, and its error reads the same on each.
func TestPreparedHeartbeatIsRateLimitedAsTheGenericOne(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{Fleet: fleet.Config{RatePerSecond: 0.001, Burst: 2}})
	p := s.NewProvider(t, "prep-rate")
	uid := "prep-rate-machine-1"
	s.NewAPIClient(t, p.AgentToken).MustDo(nil, registerMachine, map[string]any{"i": inventory(uid, "NVIDIA L4")})
	vars := `{"input":{"machineId":"` + uid + `","gpus":[{"uuid":"GPU-` + uid + `-0","utilizationPct":5}]}}`
	const accept = "application/graphql-response+json, application/json"
	for range 2 {
		ok := postHeartbeat(t, s, p.AgentToken, accept, protocol.HeartbeatMutation, "Heartbeat", vars)
		require.NotContains(t, ok.Body, "errors")
	}
	fast := postHeartbeat(t, s, p.AgentToken, accept, protocol.HeartbeatMutation, "Heartbeat", vars)
	slow := postHeartbeat(t, s, p.AgentToken, accept, protocol.HeartbeatMutation+" ", "Heartbeat", vars)
	require.Equal(t, slow, fast)
	require.Equal(t, "RATE_LIMITED", fast.Body.(map[string]any)["errors"].([]any)[0].(map[string]any)["extensions"].(map[string]any)["code"])
	prepared, _ := preparedCounts(t, s)
	require.Equal(t, 3.0, prepared)
}

// rawAnswer is a response as bytes.
type rawAnswer struct {
	Status      int
	ContentType string
	Body        string
}

func rawPost(t *testing.T, s *platformtest.Server, token, ctype, accept, body string, chunked bool) rawAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/graphql", io.MultiReader(strings.NewReader(body)))
	require.NoError(t, err)
	if !chunked {
		req.ContentLength = int64(len(body))
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return rawAnswer{res.StatusCode, res.Header.Get("Content-Type"), string(raw)}
}

// TestPreparedHeartbeatAnswersOddRequestsByteForByte sends requests odd in
// their envelope, JSON, numbers, dates, strings, headers and size, with
// the agent's document and with the generic one, and requires the same
// status, content type and body, byte for byte.
func TestPreparedHeartbeatAnswersOddRequestsByteForByte(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{API: api.Config{MaxBodyBytes: 8192}, Fleet: fleet.Config{RatePerSecond: 1e9, Burst: 1e9, TokenRatePerSecond: 1e9, TokenBurst: 1e9}})
	p := s.NewProvider(t, "odd")
	agent := s.NewAPIClient(t, p.AgentToken)
	agent.MustDo(nil, registerMachine, map[string]any{"i": inventory("review-0001", "NVIDIA H100 80GB HBM3")})
	agent.MustDo(nil, heartbeat, map[string]any{"i": beatInput("review-0001", 10, 1)})
	fastQ, _ := json.Marshal(protocol.HeartbeatMutation)
	slowQ, _ := json.Marshal(protocol.HeartbeatMutation + " ")
	gpu := func(extra string) string {
		return `{"input":{"machineId":"review-0001","gpus":[{"uuid":"GPU-review-0001-0"` + extra + `}]}}`
	}
	std := func(vars string) string { return `{"operationName":"Heartbeat","query":DOC,"variables":` + vars + `}` }
	at := func(v string) string { return std(`{"input":{"machineId":"review-0001","gpus":[],"at":"` + v + `"}}`) }
	cases := []struct {
		name, ctype, accept, body string
		chunked                   bool
	}{
		{name: "plain", body: std(gpu(""))},
		{name: "trailing garbage", body: std(gpu("")) + "xyz"},
		{name: "trailing object", body: std(gpu("")) + `{"query":"{ __typename }"}`},
		{name: "BOM", body: "\ufeff" + std(gpu(""))},
		{name: "leading ws", body: " \n\t" + std(gpu("")) + "\n"},
		{name: "dup query", body: `{"query":"{ __typename }","operationName":"Heartbeat","query":DOC,"variables":` + gpu("") + `}`},
		{name: "Query case", body: `{"Query":DOC,"operationName":"Heartbeat","variables":` + gpu("") + `}`},
		{name: "extensions {}", body: `{"query":DOC,"extensions":{},"variables":` + gpu("") + `}`},
		{name: "operationName null", body: `{"query":DOC,"operationName":null,"variables":` + gpu("") + `}`},
		{name: "operationName lower", body: `{"query":DOC,"operationName":"heartbeat","variables":` + gpu("") + `}`},
		{name: "escaped key", body: `{"qu\u0065ry":DOC,"variables":` + gpu("") + `}`},
		{name: "escaped input key", body: std(`{"\u0069nput":{"machineId":"review-0001","gpus":[]}}`)},
		{name: "dup via escape", body: std(`{"input":{"machineId":"review-0001","machine\u0049d":"review-0001","gpus":[]}}`)},
		{name: "int -0", body: std(gpu(`,"smClockMHz":-0`))},
		{name: "int 1E2", body: std(gpu(`,"smClockMHz":1E2`))},
		{name: "int 1.0", body: std(gpu(`,"smClockMHz":1.0`))},
		{name: "int -1", body: std(gpu(`,"smClockMHz":-1`))},
		{name: "int 2^63", body: std(gpu(`,"smClockMHz":9223372036854775808`))},
		{name: "float 1E2", body: std(gpu(`,"utilizationPct":1E2`))},
		{name: "float -0", body: std(gpu(`,"utilizationPct":-0`))},
		{name: "float 1e-400", body: std(gpu(`,"utilizationPct":1e-400`))},
		{name: "float 5e-324", body: std(gpu(`,"utilizationPct":5e-324`))},
		{name: "at +00:00", body: at("2020-01-01T00:00:00+00:00")},
		{name: "at lower t/z", body: at("2020-01-01t00:00:00z")},
		{name: "at 10 frac digits", body: at("2020-01-01T00:00:00.1234567891Z")},
		{name: "at comma frac", body: at("2020-01-01T00:00:00,5Z")},
		{name: "at 24:00", body: at("2020-01-01T24:00:00Z")},
		{name: "at leap second", body: at("2020-01-01T23:59:60Z")},
		{name: "at -00:00", body: at("2020-01-01T00:00:00-00:00")},
		{name: "at future", body: at("2999-01-01T00:00:00Z")},
		{name: "at empty", body: at("")},
		{name: "uuid lone surrogate", body: std(`{"input":{"machineId":"review-0001","gpus":[{"uuid":"\ud800"}]}}`)},
		{name: "uuid NUL", body: std(`{"input":{"machineId":"review-0001","gpus":[{"uuid":"\u0000"}]}}`)},
		{name: "uuid U+2028", body: std(`{"input":{"machineId":"review-0001","gpus":[{"uuid":"a\u2028b"}]}}`)},
		{name: "machineId html", body: std(`{"input":{"machineId":"<a&b>","gpus":[]}}`)},
		{name: "__typename in input", body: std(`{"input":{"machineId":"review-0001","gpus":[],"__typename":"X"}}`)},
		{name: "accept application/*", accept: "application/*", body: std(gpu(""))},
		{name: "accept text/html", accept: "text/html", body: std(gpu(""))},
		{name: "accept junk", accept: ";;;, application/graphql-response+json;charset=utf-8", body: std(gpu(""))},
		{name: "accept q=0", accept: "application/json;q=0, application/graphql-response+json", body: std(gpu(""))},
		{name: "ctype charset", ctype: "application/json; charset=utf-8", body: std(gpu(""))},
		{name: "ctype upper", ctype: "APPLICATION/JSON", body: std(gpu(""))},
		{name: "padded near limit", body: std(gpu("")) + strings.Repeat(" ", 7000)},
		{name: "chunked over limit", chunked: true, body: std(gpu("")) + strings.Repeat(" ", 9000)},
		{name: "chunked over limit, pad inside", chunked: true, body: `{"operationName":"Heartbeat","query":DOC,"variables":` + gpu("") + strings.Repeat(" ", 9000) + `}`},
		{name: "41 gpus", body: std(`{"input":{"machineId":"review-0001","gpus":[` + strings.Repeat(`{"uuid":"x"},`, 40) + `{"uuid":"x"}]}}`)},
	}
	for _, c := range cases {
		ct := c.ctype
		if ct == "" {
			ct = "application/json"
		}
		accept := c.accept
		if accept == "" {
			accept = "application/graphql-response+json, application/json"
		}
		p0, _ := preparedCounts(t, s)
		fast := rawPost(t, s, p.AgentToken, ct, accept, strings.Replace(c.body, "DOC", string(fastQ), 1), c.chunked)
		p1, _ := preparedCounts(t, s)
		slow := rawPost(t, s, p.AgentToken, ct, accept, strings.Replace(c.body, "DOC", string(slowQ), 1), c.chunked)
		require.Equal(t, slow, fast, "%s: the prepared document must answer as the generic executor", c.name)
		if c.name == "plain" {
			require.Equal(t, p0+1, p1, "a plain beat takes the prepared path")
		}
	}
}

// gqlgen words a body it cannot decode with the whole body in the message;
// the presenter keeps only the decoder's reason, so a password in a
// truncated log-in never comes back (nor reaches a log).
func TestAnUndecodableBodyIsNotEchoed(t *testing.T) {
	t.Parallel()
	s := platformtest.Start(t, platformtest.Stacks[0], platformtest.Options{})
	c := s.NewAPIClient(t, "")
	r := c.Raw(http.MethodPost, "application/json", []byte(`{"query":"mutation($i: LogInInput!) { logIn(input: $i) { token } }","variables":{"i":{"email":"a@b.c","password":"hunter2-secret"}`), "")
	require.Len(t, r.Errors, 1)
	require.Equal(t, "json request body could not be decoded: unexpected EOF", r.Errors[0].Message)
	require.Equal(t, []string{"BAD_REQUEST"}, r.Codes())
}
