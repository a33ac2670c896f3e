package mail

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gpunex/gpunex/models"
)

// templateFiles holds templates/<language>.json: every email's texts, one
// file per language, with the same nested keys in each.
//
//go:embed templates/*.json
var templateFiles embed.FS

// placeholder matches a {{name}} in a text, as i18next writes it, so the
// SPA's check reads both kinds of files alike.
var placeholder = regexp.MustCompile(`\{\{\s*([\w.]+)\s*\}\}`)

// Catalog is every language's texts, flattened to dotted keys
// ("application.approved.subject").
type Catalog struct {
	// Texts holds each language's texts by key.
	Texts map[models.Language]map[string]string
	// SameAsEnglish lists, per language, the keys whose text is meant to
	// be the English one (a technical word the language borrows, such as
	// "Upload" in Portuguese); the file says so under "_sameAsEnglish".
	SameAsEnglish map[models.Language][]string
}

// sameAsEnglishKey is the reserved top-level key of a template file that
// lists the texts meant to equal English.
const sameAsEnglishKey = "_sameAsEnglish"

var (
	catalogOnce sync.Once
	catalog     *Catalog
	catalogErr  error
)

// Texts returns the embedded catalog. It is read once; a file that does
// not parse is an error of the build, which TestTemplates reports.
func Texts() (*Catalog, error) {
	catalogOnce.Do(func() { catalog, catalogErr = LoadCatalog(templateFiles) })
	return catalog, catalogErr
}

// LoadCatalog reads templates/<language>.json for every language from fsys.
func LoadCatalog(fsys fs.FS) (*Catalog, error) {
	c := &Catalog{Texts: map[models.Language]map[string]string{}, SameAsEnglish: map[models.Language][]string{}}
	for _, lang := range models.AllLanguages {
		raw, err := fs.ReadFile(fsys, "templates/"+string(lang)+".json")
		if err != nil {
			return nil, fmt.Errorf("mail: templates of %s: %w", lang, err)
		}
		var tree map[string]any
		if err := json.Unmarshal(raw, &tree); err != nil {
			return nil, fmt.Errorf("mail: templates/%s.json: %w", lang, err)
		}
		if same, ok := tree[sameAsEnglishKey]; ok {
			list, ok := same.([]any)
			if !ok {
				return nil, fmt.Errorf("mail: templates/%s.json: %s is not a list of keys", lang, sameAsEnglishKey)
			}
			for _, k := range list {
				key, ok := k.(string)
				if !ok {
					return nil, fmt.Errorf("mail: templates/%s.json: %s holds a non-string", lang, sameAsEnglishKey)
				}
				c.SameAsEnglish[lang] = append(c.SameAsEnglish[lang], key)
			}
			delete(tree, sameAsEnglishKey)
		}
		flat := map[string]string{}
		if err := flatten(tree, "", flat); err != nil {
			return nil, fmt.Errorf("mail: templates/%s.json: %w", lang, err)
		}
		c.Texts[lang] = flat
	}
	return c, nil
}

func flatten(tree map[string]any, prefix string, out map[string]string) error {
	for k, v := range tree {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		switch v := v.(type) {
		case string:
			out[key] = v
		case map[string]any:
			if err := flatten(v, key, out); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s is neither a text nor a group of texts", key)
		}
	}
	return nil
}

// untranslated matches what may stay as in English in any language once
// placeholders are taken out: acronyms and model numbers in capitals
// (GPU, FP16, UTC) and the brand. A text equal to English with a word
// left after that is English left untranslated.
var untranslated = regexp.MustCompile(`\{\{[^}]*\}\}|\b[A-Z0-9]{2,}\b|GPUnex`)

// word is a run of three letters or more.
var word = regexp.MustCompile(`\p{L}{3,}`)

// englishLeft reports whether text, equal to en's, still reads as English.
func englishLeft(text string) bool {
	return word.MatchString(untranslated.ReplaceAllString(text, ""))
}

// Problems lists every way c's languages disagree with English: a missing
// or extra key, an empty text, different {{placeholders}}, or a text left
// in English that the language's _sameAsEnglish does not list. The SPA's
// check:i18n applies the same rules to these files.
func (c *Catalog) Problems() []string {
	var out []string
	en := c.Texts[models.LanguageEnglish]
	for _, lang := range models.AllLanguages {
		texts := c.Texts[lang]
		for _, key := range sortedKeys(texts) {
			if strings.TrimSpace(texts[key]) == "" {
				out = append(out, fmt.Sprintf("%s: %s is empty", lang, key))
			}
			if lang == models.LanguageEnglish {
				continue
			}
			ref, ok := en[key]
			if !ok {
				out = append(out, fmt.Sprintf("%s: extra key %s (not in en)", lang, key))
				continue
			}
			if got, want := Placeholders(texts[key]), Placeholders(ref); !slices.Equal(got, want) {
				out = append(out, fmt.Sprintf("%s: %s has placeholders %v, en has %v", lang, key, got, want))
			}
			if texts[key] == ref && englishLeft(ref) && !slices.Contains(c.SameAsEnglish[lang], key) {
				out = append(out, fmt.Sprintf("%s: %s is still English: %q", lang, key, ref))
			}
		}
		for _, key := range sortedKeys(en) {
			if _, ok := texts[key]; !ok {
				out = append(out, fmt.Sprintf("%s: missing key %s", lang, key))
			}
		}
		for _, key := range c.SameAsEnglish[lang] {
			if _, ok := en[key]; !ok {
				out = append(out, fmt.Sprintf("%s: %s names %s, which en does not have", lang, sameAsEnglishKey, key))
			}
		}
	}
	return out
}

// Placeholders are the distinct {{names}} of text, sorted.
func Placeholders(text string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Vars are the values of a text's {{placeholders}}: a string is shown as
// it is (escaped in the HTML part, never in the text part); a Link is a
// URL, a link in the HTML part.
type Vars map[string]any

// Link is a URL given as a placeholder's value.
type Link string

// segment is a run of a paragraph: plain text, or a link when Href is set.
type segment struct {
	Text string
	Href string
}

// block is one paragraph-level piece of an email.
type block struct {
	// Kind is "p" (translated paragraph), "list" (translated items),
	// "quote" (a person's own words, shown as written), "code" (a command
	// to copy) or "link" (a URL on its own line).
	Kind     string
	Segments []segment
	Items    [][]segment
	Text     string
}

// Email is an email being written in one language from the texts under
// one key of the catalog (its kind, e.g. "application.approved"). Every
// method adds a block; both the text and the HTML part are made from the
// same blocks, so they never disagree. The first problem (a key or a
// placeholder value missing) is kept and returned by Render and Message.
type Email struct {
	lang    models.Language
	section string
	texts   map[string]string
	subject string
	blocks  []block
	err     error
}

// Compose starts an email of kind (a group of the catalog, e.g.
// "account.confirm_email") in lang; a language GPUnex does not speak is
// written in English.
func Compose(lang models.Language, kind string) *Email {
	lang = lang.Or(models.DefaultLanguage)
	e := &Email{lang: lang, section: kind}
	c, err := Texts()
	if err != nil {
		e.err = err
		return e
	}
	e.texts = c.Texts[lang]
	return e
}

// Err is the first problem met while composing e (a key or a value
// missing), or nil.
func (e *Email) Err() error { return e.err }

// Language is the language e is written in.
func (e *Email) Language() models.Language { return e.lang }

// T is the text of key, relative to e's kind, with vars filled in, as
// plain text: for a value that goes inside another text (a tier's name, a
// metric's name).
func (e *Email) T(key string, vars Vars) string {
	var b strings.Builder
	for _, s := range e.fill(key, vars) {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Common is the text of key under "common" (shared by every email), with
// vars filled in.
func (e *Email) Common(key string, vars Vars) string {
	return e.T("^common."+key, vars)
}

// Subject sets the subject from the key "subject" of e's kind.
func (e *Email) Subject(vars Vars) *Email {
	e.subject = e.T("subject", vars)
	return e
}

// P adds the paragraph key of e's kind.
func (e *Email) P(key string, vars Vars) *Email {
	e.blocks = append(e.blocks, block{Kind: "p", Segments: e.fill(key, vars)})
	return e
}

// Greeting adds "Hello {{name}}," in e's language.
func (e *Email) Greeting(name string) *Email {
	return e.P("^common.greeting", Vars{"name": name})
}

// SignOff adds the team's signature in e's language.
func (e *Email) SignOff() *Email { return e.P("^common.signoff", nil) }

// Item is one translated line of a List: a key of e's kind and its values.
type Item struct {
	Key  string
	Vars Vars
}

// List adds a bulleted list of translated items; nothing when items is
// empty.
func (e *Email) List(items ...Item) *Email {
	if len(items) == 0 {
		return e
	}
	b := block{Kind: "list"}
	for _, it := range items {
		b.Items = append(b.Items, e.fill(it.Key, it.Vars))
	}
	e.blocks = append(e.blocks, b)
	return e
}

// Quote adds a person's own words (a reviewer's reason), shown as written
// in every language.
func (e *Email) Quote(text string) *Email {
	e.blocks = append(e.blocks, block{Kind: "quote", Text: strings.TrimSpace(text)})
	return e
}

// Code adds a command to copy, left to right in every language.
func (e *Email) Code(text string) *Email {
	e.blocks = append(e.blocks, block{Kind: "code", Text: text})
	return e
}

// URL adds a link on a line of its own, which every mail client makes
// clickable in the text part too.
func (e *Email) URL(url string) *Email {
	e.blocks = append(e.blocks, block{Kind: "link", Segments: []segment{{Text: url, Href: url}}})
	return e
}

// lookup returns the text of key: relative to e's kind, or absolute after
// a "^".
func (e *Email) lookup(key string) (string, bool) {
	full := e.section + "." + key
	if abs, ok := strings.CutPrefix(key, "^"); ok {
		full = abs
	}
	text, ok := e.texts[full]
	if !ok && e.err == nil {
		e.err = fmt.Errorf("mail: no text %s in %s", full, e.lang)
	}
	return text, ok
}

// Has reports whether e's kind has the text key and vars hold a value for
// each of its placeholders: for a text chosen by a code that may be newer
// than the templates (a guidance code), or filled from data that may lack a
// value, so the caller can write something else instead of failing.
func (e *Email) Has(key string, vars Vars) bool {
	text, ok := e.texts[e.section+"."+key]
	if !ok {
		return false
	}
	for _, name := range Placeholders(text) {
		if _, ok := vars[name]; !ok {
			return false
		}
	}
	return true
}

// fill splits key's text at its placeholders and puts vars' values in.
func (e *Email) fill(key string, vars Vars) []segment {
	text, ok := e.lookup(key)
	if !ok {
		return nil
	}
	var out []segment
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > last {
			out = append(out, segment{Text: text[last:m[0]]})
		}
		last = m[1]
		name := text[m[2]:m[3]]
		switch v := vars[name].(type) {
		case string:
			out = append(out, segment{Text: v})
		case Link:
			out = append(out, segment{Text: string(v), Href: string(v)})
		default:
			if e.err == nil {
				e.err = fmt.Errorf("mail: %s.%s in %s: no value for {{%s}}", e.section, key, e.lang, name)
			}
		}
	}
	if last < len(text) {
		out = append(out, segment{Text: text[last:]})
	}
	return out
}

// Render returns the subject, the text part and the HTML part, or the first
// problem met while composing.
func (e *Email) Render() (subject, text, html string, err error) {
	if e.err != nil {
		return "", "", "", e.err
	}
	if strings.TrimSpace(e.subject) == "" {
		return "", "", "", fmt.Errorf("mail: %s has no subject", e.section)
	}
	return e.subject, e.renderText(), e.renderHTML(), nil
}

// Message is the rendered email to to, of kind e's kind.
func (e *Email) Message(to string) (Message, error) {
	subject, text, html, err := e.Render()
	if err != nil {
		return Message{}, err
	}
	return Message{To: to, Kind: e.section, Subject: subject, Text: text, HTML: html, Language: e.lang}, nil
}

func joinSegments(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// renderText writes the plain-text part: blocks separated by a blank line,
// nothing escaped.
func (e *Email) renderText() string {
	parts := make([]string, 0, len(e.blocks))
	for _, b := range e.blocks {
		switch b.Kind {
		case "list":
			lines := make([]string, len(b.Items))
			for i, it := range b.Items {
				lines[i] = "- " + joinSegments(it)
			}
			parts = append(parts, strings.Join(lines, "\n"))
		case "quote":
			parts = append(parts, b.Text)
		case "code":
			parts = append(parts, "    "+strings.ReplaceAll(b.Text, "\n", "\n    "))
		default:
			parts = append(parts, joinSegments(b.Segments))
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// htmlLayout is the HTML part: html/template escapes every text and
// checks every link, so a name or reason holding markup shows as typed.
// Styles are inline, the only kind mail clients keep; dir and lang are on
// the root and on the wrapper, since some clients drop <html>.
var htmlLayout = htmltemplate.Must(htmltemplate.New("email").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}" dir="{{.Dir}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Subject}}</title>
</head>
<body style="margin:0;padding:0;background:#f4f5f7">
<div lang="{{.Lang}}" dir="{{.Dir}}" style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;color:#1f2328;font-family:-apple-system,'Segoe UI',Roboto,'Noto Sans','Noto Sans Devanagari','Noto Sans Arabic',Arial,sans-serif;font-size:15px;line-height:1.6">
{{- range .Blocks}}
{{- if eq .Kind "list"}}
<ul style="margin:0 0 16px;padding-inline-start:24px">
{{- range .Items}}
<li>{{template "segments" .}}</li>
{{- end}}
</ul>
{{- else if eq .Kind "quote"}}
<blockquote style="margin:0 0 16px;padding:8px 16px;border-inline-start:4px solid #d0d7de;color:#424a53;white-space:pre-wrap">{{.Text}}</blockquote>
{{- else if eq .Kind "code"}}
<pre dir="ltr" style="margin:0 0 16px;padding:12px;background:#f6f8fa;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;text-align:left"><code>{{.Text}}</code></pre>
{{- else if eq .Kind "link"}}
<p dir="ltr" style="margin:0 0 16px;word-break:break-all;text-align:{{$.Start}}">{{template "segments" .Segments}}</p>
{{- else}}
<p style="margin:0 0 16px">{{template "segments" .Segments}}</p>
{{- end}}
{{- end}}
</div>
</body>
</html>
{{define "segments"}}{{range .}}{{if .Href}}<a href="{{.Href}}" dir="ltr" style="color:#0969da">{{.Text}}</a>{{else}}{{.Text}}{{end}}{{end}}{{end}}`))

func (e *Email) renderHTML() string {
	dir, start := "ltr", "left"
	if e.lang.RightToLeft() {
		dir, start = "rtl", "right"
	}
	var b bytes.Buffer
	err := htmlLayout.Execute(&b, struct {
		Lang, Dir, Start, Subject string
		Blocks                    []block
	}{string(e.lang), dir, start, e.subject, e.blocks})
	if err != nil {
		// The layout is fixed and its data plain strings: a failure is a
		// bug of this file, which the tests would show.
		panic(fmt.Sprintf("mail: html layout: %v", err))
	}
	return b.String()
}
