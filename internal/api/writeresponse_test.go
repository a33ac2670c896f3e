package api

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
)

// An answer written without reflection is, byte for byte, what gqlgen's
// writeJson (encoding/json) writes for it, whatever its data holds.
func TestAnAnswerIsWrittenAsEncodingJSONWritesIt(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		`{"health":true}`,
		`{"me":{"id":"42","name":"Ada Lovelace"}}`,
		`{"me":{"name":"a \"quoted\" name, with \\ and spaces"}}`,
		`{"me":{"name":"\\"}}`,
		`{ "me" : { "id" : "42" } }`,
		"{\"me\":\n\t{\"id\":\"42\"}\r\n}",
		`{"note":"<script>alert(1)</script> & more"}`,
		"{\"note\":\"line\u2028separator and\u2029paragraph\"}",
		"{\"note\":\"a dash \u2014 and an é\"}",
		`{"list":[1,2.5,-3e2,null,false,"x"]}`,
	} {
		var got bytes.Buffer
		writeResponse(&got, &graphql.Response{Data: json.RawMessage(data)})
		want, err := json.Marshal(&graphql.Response{Data: json.RawMessage(data)})
		require.NoError(t, err)
		require.Equal(t, string(want), got.String(), "data %s", data)
	}
}

// No response (its client gone) is written as gqlgen writes it: null.
func TestNoResponseIsWrittenAsNull(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	writeResponse(&got, nil)
	require.Equal(t, "null", got.String())
}
