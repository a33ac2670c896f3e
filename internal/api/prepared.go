package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// PreparedOperation is a trusted document answered without gqlgen's
// generic executor: the agent's operations, sent every few seconds by
// every machine, are the platform's hot path. Build one with Prepare and
// register it in Deps.Prepared where the server is assembled.
//
// The document is parsed and validated against the schema, and its
// complexity and depth checked against the limits, once at startup. A
// request carrying exactly its text has its variables checked against the
// schema in one pass (present where required, null only where nullable,
// no unknown or duplicate members, lists as lists, enums among their
// values, Ints in 32 bits) and then decoded strictly straight into the
// resolver's argument type (exact member names, no coercions). For
// anything else the generic executor answers, untouched, so every error a
// client can see is still gqlgen's.
//
// A prepared operation bypasses gqlgen's field and operation middleware
// (AroundFields, AroundOperations) and its directives, so a document that
// reaches a schema directive is refused at startup; the resolver's context
// carries an OperationContext with the document, the operation and no
// variables.
type PreparedOperation struct {
	document string
	// payload is the type the resolver returns: its JSON member names,
	// nested, must be the document's selection set in order, which
	// prepare checks.
	payload reflect.Type
	// run decodes the variables and resolves the root field. handled=false
	// means the variables were not in their plain form and nothing ran;
	// otherwise value is the root field's JSON or err the resolver's error.
	run func(ctx context.Context, variables []byte) (value []byte, handled bool, err error)
}

// Prepare makes document a prepared operation: its variables are decoded
// into V (a struct with one member per variable, as the client encodes
// them) and resolve answers its one root field with a value of Out,
// written with encoding/json in the document's selection order.
func Prepare[V, Out any](document string, resolve func(ctx context.Context, variables V) (Out, error)) PreparedOperation {
	return PreparedOperation{document: document, payload: reflect.TypeFor[Out](),
		run: func(ctx context.Context, data []byte) ([]byte, bool, error) {
			var vars V
			if jsonv2.Unmarshal(data, &vars, strictJSON) != nil {
				return nil, false, nil
			}
			out, err := resolve(ctx, vars)
			if err != nil {
				return nil, true, err
			}
			value, err := json.Marshal(out)
			return value, true, err
		}}
}

// preparedOp is a PreparedOperation checked against the schema.
type preparedOp struct {
	PreparedOperation
	name   string // the operation's name
	opType string // query or mutation
	field  *ast.Field
	object string // the root type's name
	doc    *ast.QueryDocument
	vars   variablesShape // what plain variables look like
	quoted []byte         // the document as a JSON string, for a cheap first look
	prefix []byte         // {"data":{"<alias>":
	// served and declined count the requests this path answered and
	// those it left to the generic executor (resolved once, not per beat).
	served, declined prometheus.Counter
}

// prepare checks each document against the schema: one named operation
// with one root field, valid, within the complexity and depth limits, no
// schema directive on its way, and a payload shaped as its selection.
func prepare(es graphql.ExecutableSchema, cfg Config, list []PreparedOperation) (map[string]*preparedOp, error) {
	ops := map[string]*preparedOp{}
	for _, p := range list {
		if ops[p.document] != nil {
			return nil, errors.New("api: a document is prepared twice")
		}
		if p.run == nil {
			return nil, errors.New("api: a prepared operation is made with Prepare")
		}
		doc, errs := gqlparser.LoadQueryWithRules(es.Schema(), p.document, nil)
		if len(errs) > 0 {
			return nil, fmt.Errorf("api: prepared document is not valid: %w", errs)
		}
		if len(doc.Operations) != 1 || doc.Operations[0].Name == "" || len(doc.Fragments) > 0 {
			return nil, errors.New("api: a prepared document has exactly one named operation and no fragments")
		}
		op := doc.Operations[0]
		if op.Operation == ast.Subscription || len(op.SelectionSet) != 1 {
			return nil, fmt.Errorf("api: prepared operation %s must be a query or mutation with one root field", op.Name)
		}
		field, ok := op.SelectionSet[0].(*ast.Field)
		if !ok {
			return nil, fmt.Errorf("api: prepared operation %s must select one plain root field", op.Name)
		}
		if _, err := measureOperation(op, doc.Fragments, cfg.operationLimits()); err != nil {
			return nil, fmt.Errorf("api: prepared operation %s: %s", op.Name, err.Message)
		}
		if where := skippedDirective(es.Schema(), op); where != "" {
			return nil, fmt.Errorf("api: prepared operation %s reaches a directive (%s), which only the generic executor runs", op.Name, where)
		}
		if err := sameShape(p.payload, field.SelectionSet, field.Alias); err != nil {
			return nil, fmt.Errorf("api: prepared operation %s: the payload is not shaped as the selection: %w", op.Name, err)
		}
		object := es.Schema().Query.Name
		if op.Operation == ast.Mutation {
			object = es.Schema().Mutation.Name
		}
		quoted, _ := json.Marshal(p.document)
		alias, _ := json.Marshal(field.Alias)
		prefix := append(append([]byte(`{"data":{`), alias...), ':')
		ops[p.document] = &preparedOp{PreparedOperation: p, name: op.Name, opType: string(op.Operation), object: object,
			field: field, doc: doc, vars: variablesShape{schema: es.Schema(), defs: op.VariableDefinitions},
			quoted: quoted, prefix: prefix}
	}
	return ops, nil
}

// skippedDirective names the first directive a prepared operation would
// skip, or returns "" when there is none: in the document, or in the schema on a selected field, an
// argument, or an input type the arguments reach (@deprecated changes
// nothing at run time and is allowed).
func skippedDirective(schema *ast.Schema, op *ast.OperationDefinition) string {
	has := func(list ast.DirectiveList) bool {
		for _, d := range list {
			if d.Name != "deprecated" {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	var input func(name string) string
	input = func(name string) string {
		def := schema.Types[name]
		if def == nil || seen[name] || def.Kind != ast.InputObject {
			return ""
		}
		seen[name] = true
		if has(def.Directives) {
			return "input " + name
		}
		for _, f := range def.Fields {
			if has(f.Directives) {
				return "input field " + name + "." + f.Name
			}
			if where := input(f.Type.Name()); where != "" {
				return where
			}
		}
		return ""
	}
	var fields func(set ast.SelectionSet) string
	fields = func(set ast.SelectionSet) string {
		for _, sel := range set {
			f, ok := sel.(*ast.Field)
			if !ok {
				return "a fragment"
			}
			if has(f.Directives) || (f.Definition != nil && has(f.Definition.Directives)) {
				return "field " + f.Name
			}
			if f.Definition != nil {
				for _, a := range f.Definition.Arguments {
					if has(a.Directives) {
						return "argument " + f.Name + "." + a.Name
					}
					if where := input(a.Type.Name()); where != "" {
						return where
					}
				}
			}
			if where := fields(f.SelectionSet); where != "" {
				return where
			}
		}
		return ""
	}
	if has(op.Directives) {
		return "the operation"
	}
	for _, v := range op.VariableDefinitions {
		if has(v.Directives) {
			return "variable $" + v.Variable
		}
	}
	return fields(op.SelectionSet)
}

// sameShape checks that type t marshals to JSON with the member names of
// selection set, in its order, at every level.
func sameShape(t reflect.Type, set ast.SelectionSet, path string) error {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	if len(set) == 0 {
		return nil
	}
	if t == nil || t.Kind() != reflect.Struct {
		return fmt.Errorf("%s: %v is not a struct", path, t)
	}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	if len(names) != len(set) {
		return fmt.Errorf("%s: %d members for %d selected fields", path, len(names), len(set))
	}
	for i, sel := range set {
		f, ok := sel.(*ast.Field)
		if !ok || names[i] != f.Alias {
			return fmt.Errorf("%s: member %d is %q, the selection has %q", path, i, names[i], fieldAlias(sel))
		}
		if err := sameShape(t.Field(i).Type, f.SelectionSet, path+"."+f.Alias); err != nil {
			return err
		}
	}
	return nil
}

func fieldAlias(sel ast.Selection) string {
	if f, ok := sel.(*ast.Field); ok {
		return f.Alias
	}
	return "a fragment"
}

// configurable is the set-up handler.Server and executor.Executor share:
// New configures both alike.
type configurable interface {
	SetQueryCache(cache graphql.Cache[*ast.QueryDocument])
	SetErrorPresenter(f graphql.ErrorPresenterFunc)
	SetRecoverFunc(f graphql.RecoverFunc)
	SetParserTokenLimit(limit int)
	SetDisableSuggestion(value bool)
	Use(extension graphql.HandlerExtension)
	AroundResponses(f graphql.ResponseMiddleware)
}

var (
	_ configurable = (*handler.Server)(nil)
	_ configurable = (*executor.Executor)(nil)
)

// postRoute answers a POST (no Upgrade header) with transport over exec, as
// handler.Server would (checkRequest let only JSON bodies through, which
// is what gqlgen's POST transport supports), without its per-request
// copy of the request or its look through every transport; any other
// request goes to other, handler.Server with the WebSocket, GET and
// OPTIONS transports. gqlgen's operation trace (the start time its
// executor reads) is begun where the executor runs (preparedPOST.Do).
type postRoute struct {
	exec      *executor.Executor
	transport preparedPOST
	other     http.Handler
}

func (p postRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.serveContext(r.Context(), w, r)
}

// serveContext is ServeHTTP with ctx for r's context (see contextHandler):
// a POST is answered under ctx, anything else gets a copy of r carrying
// it.
func (p postRoute) serveContext(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || headerValue(r.Header, "Upgrade") != "" {
		p.other.ServeHTTP(w, withContext(r, ctx))
		return
	}
	// handler.Server's answer to a panic outside the resolvers.
	defer func() {
		if err := recover(); err != nil {
			gqlErr, _ := p.exec.PresentRecoveredError(ctx, err).(*gqlerror.Error)
			b, _ := json.Marshal(&graphql.Response{Errors: gqlerror.List{gqlErr}})
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write(b)
		}
	}()
	p.transport.do(ctx, w, r, p.exec)
}

// A contextHandler serves a request under a context other than the
// request's own: the one the authenticator made (the caller, the client's
// address), handed on as it is where Request.WithContext would copy the
// request's 250 bytes for every request. Everything it calls takes its
// context from ctx, never from r.
type contextHandler interface {
	serveContext(ctx context.Context, w http.ResponseWriter, r *http.Request)
}

// handOn is how a middleware that made ctx for r calls next: as it is
// when next is a contextHandler, else with a copy of r carrying ctx.
func handOn(next http.Handler) func(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if c, ok := next.(contextHandler); ok {
		return c.serveContext
	}
	return func(ctx context.Context, w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, withContext(r, ctx))
	}
}

// withContext is r carrying ctx: r itself when it already does.
func withContext(r *http.Request, ctx context.Context) *http.Request {
	if r.Context() == ctx {
		return r
	}
	return r.WithContext(ctx)
}

// preparedPOST is gqlgen's POST transport with the prepared documents in
// front: a request for one of them, in its plain form, is answered by its
// resolver; every other request goes to transport.POST untouched.
type preparedPOST struct {
	transport.POST
	schema    graphql.ExecutableSchema
	ops       map[string]*preparedOp
	metrics   *metrics
	presenter graphql.ErrorPresenterFunc
	recover   graphql.RecoverFunc
}

var _ graphql.Transport = preparedPOST{}

// preparedBody is the POST body as the prepared path reads it: exact
// member names, no others (gqlgen's decoder matches names without regard
// to case, so anything unusual goes its way).
type preparedBody struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     jsontext.Value `json:"variables"`
}

// strictJSON is how the prepared path reads JSON: exact member names,
// unknown and duplicate members refused, invalid UTF-8 refused.
var strictJSON = jsonv2.RejectUnknownMembers(true)

func (t preparedPOST) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	t.do(r.Context(), w, r, exec)
}

// do is Do under ctx, r's context as the authenticator made it.
func (t preparedPOST) do(ctx context.Context, w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	body, err := readBody(r)
	if err != nil {
		// Let gqlgen say what went wrong reading it.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		t.generic(ctx, w, r, exec)
		return
	}
	if op, b := t.match(body); op != nil && t.serve(ctx, w, r, op, b) {
		return
	}
	if p, ok := plainRequest(body); ok {
		t.plain(ctx, w, r, exec, p)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	t.generic(ctx, w, r, exec)
}

// generic is gqlgen's POST transport, the operation's trace begun as
// handler.Server begins it.
// Its statuses are okForJSON's.
func (t preparedPOST) generic(ctx context.Context, w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	t.POST.Do(&jsonStatusWriter{ResponseWriter: w}, r.WithContext(graphql.StartOperationTrace(ctx)), exec)
}

// plainBody is a POST body with a document and no variables (absent,
// null or {}) or extensions, read as the prepared path reads (exact member
// names, no others): the most common request, a page's query.
type plainBody struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     jsontext.Value `json:"variables"`
}

// plainRequest reads body as a plainBody; false sends it gqlgen's way.
func plainRequest(body []byte) (plainBody, bool) {
	if p, ok := simplePlain(body); ok {
		return p, true
	}
	return decodePlain(body)
}

// decodePlain reads body as a plainBody with the JSON decoder.
func decodePlain(body []byte) (plainBody, bool) {
	var p plainBody
	if jsonv2.Unmarshal(body, &p, strictJSON) != nil {
		return plainBody{}, false
	}
	switch string(bytes.TrimSpace(p.Variables)) {
	case "", "null", "{}":
		return p, true
	}
	return plainBody{}, false
}

// simplePlain reads the usual body without a JSON decoder (whose
// setting up costs more than such a body's reading): {"query":"…"},
// perhaps with an "operationName" string and "variables" null or {},
// each member once, its strings with no escape, no control character and
// valid UTF-8. It answers as the decoder would, or false, and then the
// decoder reads the body.
func simplePlain(b []byte) (plainBody, bool) {
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return plainBody{}, false
	}
	var p plainBody
	var query, operationName, variables bool
	// member reads a string member's value at i into dst, once.
	member := func(seen *bool, dst *string) bool {
		v, j, ok := simpleJSONString(b, i)
		if !ok || *seen {
			return false
		}
		*seen, *dst, i = true, string(v), j
		return true
	}
	i = skipJSONSpace(b, i+1)
	for {
		name, j, ok := simpleJSONString(b, i)
		if !ok {
			return plainBody{}, false
		}
		i = skipJSONSpace(b, j)
		if i == len(b) || b[i] != ':' {
			return plainBody{}, false
		}
		i = skipJSONSpace(b, i+1)
		switch string(name) {
		case "query":
			ok = member(&query, &p.Query)
		case "operationName":
			ok = member(&operationName, &p.OperationName)
		case "variables":
			ok = !variables
			variables = true
			switch {
			case bytes.HasPrefix(b[i:], []byte("null")):
				i += len("null")
			case bytes.HasPrefix(b[i:], []byte("{}")):
				i += len("{}")
			default:
				ok = false
			}
		default:
			ok = false
		}
		if !ok {
			return plainBody{}, false
		}
		if i = skipJSONSpace(b, i); i == len(b) {
			return plainBody{}, false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return plainBody{}, false
		}
		i = skipJSONSpace(b, i+1)
	}
	if !query || skipJSONSpace(b, i+1) != len(b) {
		return plainBody{}, false
	}
	return p, true
}

// skipJSONSpace is the index of the first byte from i that is not JSON's
// white space.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// simpleJSONString reads the JSON string at b[i] if it has no escape, no
// control character and is valid UTF-8: its text and the index after it.
func simpleJSONString(b []byte, i int) ([]byte, int, bool) {
	if i == len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s := b[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// plain answers a plainBody as gqlgen's POST transport does (the same
// content type, status codes, errors and executor: the operation's
// validation, limits and extensions all run), without reading the body a
// second time, decoding it with encoding/json's reflection and a decoder's
// buffer, or merging header maps per request.
func (t preparedPOST) plain(ctx context.Context, w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, p plainBody) {
	ctx = graphql.StartOperationTrace(ctx)
	contentType := responseContentType(r)
	w.Header()["Content-Type"] = contentTypeValue(contentType)
	// No ReadTime: gqlgen's statistics are not kept (statsClock).
	params := &graphql.RawParams{Query: p.Query, OperationName: p.OperationName, Headers: r.Header}
	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		// gqlgen's statusFor and statusForGraphQLResponse, as okForJSON
		// amends them: their 422 is 200 when the answer is
		// application/json.
		if errcode.GetErrorKind(errs) == errcode.KindProtocol && contentType == graphQLResponseJSON {
			w.WriteHeader(http.StatusBadRequest)
		}
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs))
		return
	}
	if rc.Operation.Operation == ast.Subscription {
		responses, ctx := exec.DispatchOperation(ctx, rc)
		writeResponse(w, responses(ctx))
		return
	}
	writeResponse(w, t.dispatch(ctx, rc))
}

// dispatch runs a query or mutation as exec.DispatchOperation runs it for
// the POST executor, whose only operation, response or field middleware
// is the operation count (New refuses an extension that intercepts, see
// mustNotIntercept): one response context for the operation where
// DispatchOperation makes two (one to start it, one to resolve it), and no
// middleware chain to go through: about 14% of what the server spends
// on a small query (BenchmarkSmallQueryHandler). Like DispatchOperation it
// resolves nothing for a client already gone (no response: null).
// TestAPlainQueryIsAnsweredAsGqlgensTransportAnswersIt holds its answers,
// errors and panics included, to DispatchOperation's.
func (t preparedPOST) dispatch(ctx context.Context, rc *graphql.OperationContext) *graphql.Response {
	ctx = graphql.WithResponseContext(graphql.WithOperationContext(ctx, rc), t.presenter, t.recover)
	responses := t.schema.Exec(ctx)
	var resp *graphql.Response
	switch errs := graphql.GetErrors(ctx); {
	case errs != nil:
		resp = &graphql.Response{Errors: errs}
	case ctx.Err() != nil:
	default:
		if resp = responses(ctx); resp != nil {
			resp.Errors = append(resp.Errors, graphql.GetErrors(ctx)...)
			resp.Extensions = graphql.GetExtensions(ctx)
		}
	}
	t.metrics.countResponse(ctx, resp)
	return resp
}

// writeResponse is gqlgen's writeJson: encoding/json's bytes for the
// response. One with data alone (the usual answer) is written without
// reflection, {"data":…}, its data as encoding/json writes a
// json.RawMessage: compacted and HTML-escaped, which gqlgen's data mostly
// is already (then it is written as it is).
func writeResponse(w io.Writer, response *graphql.Response) {
	if response != nil && len(response.Errors) == 0 && len(response.Extensions) == 0 && response.Label == "" &&
		response.Path == nil && response.HasNext == nil && len(response.Data) > 0 {
		if asRawMessage(response.Data) {
			_, _ = w.Write(dataOpen)
			_, _ = w.Write(response.Data)
			_, _ = w.Write(dataClose)
			return
		}
		var compact bytes.Buffer
		compact.Grow(len(response.Data))
		if json.Compact(&compact, response.Data) == nil {
			out := bytes.NewBuffer(make([]byte, 0, len(`{"data":}`)+compact.Len()+16))
			out.WriteString(`{"data":`)
			json.HTMLEscape(out, compact.Bytes())
			out.WriteByte('}')
			_, _ = w.Write(out.Bytes())
			return
		}
	}
	b, err := json.Marshal(response)
	if err != nil {
		panic(fmt.Errorf("unable to marshal %s: %w", string(response.Data), err))
	}
	_, _ = w.Write(b)
}

// mustNotIntercept panics for an extension of the POST executor that
// intercepts operations, responses, root fields or fields: dispatch
// would skip it.
func mustNotIntercept(x graphql.HandlerExtension) {
	switch x.(type) {
	case graphql.OperationInterceptor, graphql.ResponseInterceptor, graphql.RootFieldInterceptor, graphql.FieldInterceptor:
		panic(fmt.Sprintf("api: %s intercepts, which the POST executor's dispatch would skip", x.ExtensionName()))
	}
}

// dataOpen and dataClose are what writeResponse writes around an
// answer's data, made once: a string written to an io.Writer is copied
// into new bytes first.
var dataOpen, dataClose = []byte(`{"data":`), []byte(`}`)

// asRawMessage reports whether data, JSON as gqlgen's marshalers write
// it, is already what encoding/json writes for it as a json.RawMessage:
// no white space outside its strings, nothing json.HTMLEscape changes
// (<, >, &, U+2028, U+2029: any byte 0xE2, which begins the last two, is
// taken for one), no string left open, and one value (an object). One
// pass over the bytes, where json.Compact runs its scanner and copies.
func asRawMessage(data []byte) bool {
	if data[0] != '{' || data[len(data)-1] != '}' {
		return false
	}
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case c == '<' || c == '>' || c == '&' || c == 0xE2:
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return !inString
}

// readBody reads r's body whole. A body of known length (limitBody
// refused it already if over the limit) is read into a buffer of its
// size and a byte; one of unknown length is read as io.ReadAll would,
// growing.
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength <= 0 {
		var buf bytes.Buffer
		_, err := buf.ReadFrom(r.Body)
		return buf.Bytes(), err
	}
	body := make([]byte, r.ContentLength, r.ContentLength+1)
	n, err := io.ReadFull(r.Body, body)
	if err != nil {
		return body[:n], err
	}
	// The declared length is read; the reader's end is read too (into
	// the byte to spare), so that an error it keeps for its end (a body
	// longer than declared) is not missed.
	switch m, err := r.Body.Read(body[len(body):cap(body)]); {
	case m > 0:
		return body, errLongerThanDeclared
	case err != nil && err != io.EOF:
		return body, err
	}
	return body, nil
}

// errLongerThanDeclared is a body that goes on past its Content-Length.
var errLongerThanDeclared = errors.New("the request body is longer than its Content-Length")

// match finds the prepared operation a body asks for, if any; a body that
// does not carry a prepared document's text costs one substring search.
func (t preparedPOST) match(body []byte) (*preparedOp, *preparedBody) {
	var found bool
	for _, op := range t.ops {
		if bytes.Contains(body, op.quoted) {
			found = true
			break
		}
	}
	if !found {
		return nil, nil
	}
	var b preparedBody
	if err := jsonv2.Unmarshal(body, &b, strictJSON); err != nil {
		return nil, nil
	}
	op := t.ops[b.Query]
	if op == nil || (b.OperationName != "" && b.OperationName != op.name) || len(b.Variables) == 0 {
		return nil, nil
	}
	return op, &b
}

// serve answers a prepared request as gqlgen would: same content type,
// same status, the resolver's errors through the same presenter at the
// root field's path. It reports false, having written nothing, when the
// variables are not in their plain form or do not decode.
func (t preparedPOST) serve(ctx context.Context, w http.ResponseWriter, r *http.Request, op *preparedOp, b *preparedBody) (served bool) {
	if !op.vars.plain(b.Variables) {
		// Coercions, nulls where none may be, missing members: GraphQL's
		// rules and words for them are the generic executor's.
		op.declined.Inc()
		return false
	}
	ctx = graphql.WithOperationContext(ctx, &graphql.OperationContext{RawQuery: op.document, OperationName: op.name,
		Doc: op.doc, Operation: op.doc.Operations[0], Variables: map[string]any{}, DisableIntrospection: true})
	fc := &graphql.FieldContext{Object: op.object, Field: graphql.CollectedField{Field: op.field}, IsMethod: true, IsResolver: true}
	ctx = graphql.WithFieldContext(ctx, fc)
	value, handled, err := t.run(ctx, op, b.Variables)
	if !handled {
		op.declined.Inc()
		return false
	}
	op.served.Inc()
	w.Header().Set("Content-Type", responseContentType(r))
	outcome := "ok"
	var out []byte
	if err != nil {
		// As gqlgen's resolveField and AddError do: the field's location,
		// its path, then the presenter.
		gqlErr := t.presenter(ctx, graphql.ErrorOnPath(ctx, graphql.AddFieldLocationToError(ctx, err)))
		if c, ok := gqlErr.Extensions["code"].(string); ok {
			outcome = c
		} else {
			outcome = "error"
		}
		out, _ = json.Marshal(graphql.Response{Errors: gqlerror.List{gqlErr}})
	} else {
		out = make([]byte, 0, len(op.prefix)+len(value)+2)
		out = append(append(append(out, op.prefix...), value...), "}}"...)
	}
	t.metrics.countOperation(op.opType, outcome)
	_, _ = w.Write(out)
	return true
}

// run calls the operation, turning a panic into the error gqlgen's
// recover function makes of it.
func (t preparedPOST) run(ctx context.Context, op *preparedOp, vars []byte) (value []byte, handled bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			value, handled, err = nil, true, t.recover(ctx, p)
		}
	}()
	return op.run(ctx, vars)
}

// responseContentType is gqlgen's negotiation (transport.POST with its
// defaults): the first of application/json or
// application/graphql-response+json the Accept header names, wildcards
// meaning application/json, nothing meaning application/json.
func responseContentType(r *http.Request) string {
	accept := headerValue(r.Header, "Accept")
	if accept == "" {
		return "application/json"
	}
	for part := range strings.SplitSeq(accept, ",") {
		mediaType := strings.TrimSpace(part)
		switch mediaType {
		case "*/*", "application/*", "application/json", "application/graphql-response+json":
			// As ParseMediaType would read them, without its map.
		default:
			var err error
			if mediaType, _, err = mime.ParseMediaType(mediaType); err != nil {
				continue
			}
		}
		switch mediaType {
		case "*/*", "application/*", "application/json":
			return "application/json"
		case graphQLResponseJSON:
			return graphQLResponseJSON
		}
	}
	return graphQLResponseJSON
}

// graphQLResponseJSON is the GraphQL-over-HTTP spec's media type.
const graphQLResponseJSON = "application/graphql-response+json"

// The Content-Type headers of the answers responseContentType chooses,
// made once (net/http only reads them).
var jsonValue, graphQLResponseJSONValue = []string{"application/json"}, []string{graphQLResponseJSON}

// contentTypeValue is contentType's header value.
func contentTypeValue(contentType string) []string {
	if contentType == graphQLResponseJSON {
		return graphQLResponseJSONValue
	}
	return jsonValue
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// mustPrepare is prepare for New, which has no error to return: a
// prepared document that does not fit the schema is a programming error
// the first test run shows.
func mustPrepare(es graphql.ExecutableSchema, cfg Config, list []PreparedOperation, m *metrics, logger *slog.Logger) map[string]*preparedOp {
	ops, err := prepare(es, cfg, list)
	if err != nil {
		logger.Error("api: prepared operations refused", "err", err)
		panic(err)
	}
	for _, op := range ops {
		op.served = m.prepared.WithLabelValues(op.name, "prepared")
		op.declined = m.prepared.WithLabelValues(op.name, "generic")
	}
	return ops
}
