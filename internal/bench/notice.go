package bench

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpunex/gpunex/internal/mail"
	"github.com/gpunex/gpunex/models"
)

// Notification kinds. The SPA translates each with its params.
const (
	KindGpuDelisted = "GPU_DELISTED"
	KindGpuRelisted = "GPU_RELISTED"
	// KindBenchmarkRefused: a run's result was refused as untrustworthy
	// (see verify); params machineId, hostname, runId, fields.
	KindBenchmarkRefused = "BENCHMARK_REFUSED"
)

// tellRefused tells the provider, in the app, that a run's result was
// refused and why: each field with the agent's message.
func (s *Service) tellRefused(ctx context.Context, tx bun.Tx, run *models.BenchmarkRun, problems []models.BenchmarkProblem) error {
	c, hostname, err := runContact(ctx, tx, run)
	if err != nil {
		return err
	}
	var body strings.Builder
	fields := make([]string, 0, len(problems))
	body.WriteString("The agent's result for benchmark run " + run.RunID + " was refused: it does not hold together.\n")
	for _, p := range problems {
		fields = appendOnce(fields, p.Field)
		fmt.Fprintf(&body, "- %s: %s\n", p.Field, p.Message)
	}
	body.WriteString("The GPUs keep their listing until a run's result is accepted. Run the official gpunex-agent, " +
		"updated, and ask for a benchmark again; refused results are recorded for the GPUnex team.")
	n := &models.Notification{UserID: c.UserID, Kind: KindBenchmarkRefused,
		Title: fmt.Sprintf("A benchmark result from %s was refused", hostname), Body: body.String(),
		Params: map[string]string{"machineId": strconv.FormatInt(run.MachineID, 10), "hostname": hostname, "runId": run.RunID,
			"fields": strings.Join(fields, ",")}}
	return s.deps.Notify.Add(ctx, tx, n)
}

// runContact is whom run's notices go to and the hostname of its machine.
func runContact(ctx context.Context, tx bun.Tx, run *models.BenchmarkRun) (contact, string, error) {
	var c contact
	if err := tx.NewSelect().TableExpr("providers AS p").Join("JOIN users AS u ON u.id = p.user_id").
		ColumnExpr("u.id AS user_id, u.email, u.name").Where("p.id = ?", run.ProviderID).Scan(ctx, &c); err != nil {
		return c, "", fmt.Errorf("bench: unable to find the provider's contact: %w", err)
	}
	var hostname string
	if err := tx.NewSelect().Model((*models.Machine)(nil)).Column("hostname").Where("id = ?", run.MachineID).Scan(ctx, &hostname); err != nil {
		return c, "", fmt.Errorf("bench: unable to load the machine: %w", err)
	}
	return c, hostname, nil
}

// contact is whom a provider's notices go to.
type contact struct {
	UserID int64  `bun:"user_id"`
	Email  string `bun:"email"`
	Name   string `bun:"name"`
}

// tell notifies the provider, in the app and by email, of the listing
// changes one run made: one notice for the GPUs it delisted, one for those
// it relisted, each naming per GPU the metrics, the measured and expected
// figures and what to check.
func (s *Service) tell(ctx context.Context, tx bun.Tx, run *models.BenchmarkRun, changes []listingChange) error {
	c, hostname, err := runContact(ctx, tx, run)
	if err != nil {
		return err
	}
	for _, to := range []models.GpuListing{models.GpuListingDelisted, models.GpuListingListed} {
		var these []listingChange
		for _, ch := range changes {
			if ch.to == to {
				these = append(these, ch)
			}
		}
		if len(these) == 0 {
			continue
		}
		n, msg := s.notice(run, hostname, c, to, these)
		if err := s.deps.Notify.Add(ctx, tx, n); err != nil {
			return err
		}
		if err := s.deps.Outbox.Enqueue(ctx, tx, msg); err != nil {
			return err
		}
	}
	return nil
}

// notice renders one notification and its email.
func (s *Service) notice(run *models.BenchmarkRun, hostname string, c contact, to models.GpuListing, changes []listingChange) (*models.Notification, mail.Message) {
	var gpus, metrics, guidance []string
	var body strings.Builder
	for _, ch := range changes {
		label := fmt.Sprintf("GPU %d (%s)", ch.gpu.Index, ch.gpu.Name)
		gpus = append(gpus, strconv.Itoa(ch.gpu.Index))
		if to == models.GpuListingListed {
			fmt.Fprintf(&body, "- %s passed every threshold", label)
			if ch.result.Score != nil {
				fmt.Fprintf(&body, " (score %d)", *ch.result.Score)
			}
			body.WriteString(" and is listed again.\n")
			continue
		}
		fmt.Fprintf(&body, "- %s:\n", label)
		if ch.result.Outcome != "COMPLETED" && ch.result.Error != nil {
			fmt.Fprintf(&body, "    the benchmark failed: %s\n", *ch.result.Error)
		}
		for _, f := range ch.result.Shortfalls {
			metrics = appendOnce(metrics, string(f.Metric))
			fmt.Fprintf(&body, "    %s measured %s; expected %s, minimum %s\n", f.Metric, num(f.Measured), expectedText(f), num(f.Minimum))
		}
		for _, g := range ch.result.Guidance {
			guidance = appendOnce(guidance, string(g.Code))
			fmt.Fprintf(&body, "    What to check: %s\n", g.Message)
		}
	}
	params := map[string]string{"machineId": strconv.FormatInt(run.MachineID, 10), "hostname": hostname, "gpus": strings.Join(gpus, ","),
		"runId": run.RunID}
	n := &models.Notification{UserID: c.UserID, Params: params}
	var kind string
	if to == models.GpuListingDelisted {
		params["metrics"], params["guidance"] = strings.Join(metrics, ","), strings.Join(guidance, ",")
		n.Kind, kind = KindGpuDelisted, MailKindDelisted
		n.Title = fmt.Sprintf("GPU delisted on %s after a benchmark", hostname)
	} else {
		n.Kind, kind = KindGpuRelisted, MailKindRelisted
		n.Title = fmt.Sprintf("GPU listed again on %s", hostname)
	}
	n.Body = strings.TrimSpace(body.String())
	link := s.cfg.PublicURL() + "/provider/benchmarks"
	msg := mail.ForUser(c.UserID, func(lang models.Language) *mail.Email {
		return noticeEmail(lang, kind, hostname, c.Name, changes, link)
	})
	msg.To, msg.DedupeKey = c.Email, fmt.Sprintf("benchmark:%s:%s", run.RunID, strings.ToLower(string(to)))
	return n, msg
}

// The kinds of the benchmark emails, also their groups in the mail
// templates.
const (
	MailKindDelisted = "benchmark.delisted"
	MailKindRelisted = "benchmark.relisted"
)

// noticeEmail writes a delisting or relisting email in lang: per GPU, in a
// delisting, each metric under its threshold with the measured, expected
// and minimum figures as numbers of the language, and what to check.
func noticeEmail(lang models.Language, kind, hostname, name string, changes []listingChange, link string) *mail.Email {
	e := mail.Compose(lang, kind).Subject(mail.Vars{"hostname": hostname}).Greeting(name).
		P("intro", mail.Vars{"hostname": hostname})
	figure := func(p *float64) string {
		if p == nil {
			return e.T("unknown", nil)
		}
		return e.Number(*p, 3)
	}
	if kind == MailKindRelisted {
		var items []mail.Item
		for _, ch := range changes {
			vars := mail.Vars{"index": e.Digits(strconv.Itoa(ch.gpu.Index)), "name": ch.gpu.Name}
			if ch.result.Score != nil {
				vars["score"] = e.Digits(strconv.Itoa(*ch.result.Score))
				items = append(items, mail.Item{Key: "passedScore", Vars: vars})
			} else {
				items = append(items, mail.Item{Key: "passed", Vars: vars})
			}
		}
		e.List(items...)
	} else {
		for _, ch := range changes {
			e.P("gpu", mail.Vars{"index": e.Digits(strconv.Itoa(ch.gpu.Index)), "name": ch.gpu.Name})
			var items []mail.Item
			if ch.result.Outcome != "COMPLETED" && ch.result.Error != nil {
				items = append(items, mail.Item{Key: "failed", Vars: mail.Vars{"error": *ch.result.Error}})
			}
			for _, f := range ch.result.Shortfalls {
				metric := string(f.Metric)
				if e.Has("metrics."+metric, nil) {
					metric = e.T("metrics."+metric, nil)
				}
				items = append(items, mail.Item{Key: "shortfall", Vars: mail.Vars{"metric": metric,
					"measured": figure(f.Measured), "expected": figure(f.Expected), "minimum": figure(f.Minimum)}})
			}
			for _, g := range ch.result.Guidance {
				vars := guidanceVars(e, g)
				// A code or a parameter newer than the templates keeps
				// the English guidance rather than losing it.
				text := g.Message
				if key := "guidance." + string(g.Code); e.Has(key, vars) {
					text = e.T(key, vars)
				}
				items = append(items, mail.Item{Key: "check", Vars: mail.Vars{"guidance": text}})
			}
			e.List(items...)
		}
	}
	return e.P("link", nil).URL(link).SignOff()
}

// guidanceVars are the values of g's parameters written for e's reader: a
// metric by its name in the language, a figure as a number of the language
// (its digits and separators), one that was not measured ("?", or a rated
// power unknown for the model) as the language's n/a, and a driver error
// the agent did not name ("unknown") as an unknown error in the language.
// Any other value (a driver's own error text) is shown as it is.
func guidanceVars(e *mail.Email, g models.BenchmarkGuidance) mail.Vars {
	vars := mail.Vars{}
	for _, p := range g.Params {
		v := p.Value
		switch p.Key {
		case "metric":
			if e.Has("metrics."+v, nil) {
				v = e.T("metrics."+v, nil)
			}
		case "error":
			if v == "" || v == "unknown" {
				v = e.T("unknownError", nil)
			}
		default:
			if x, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
				v = e.Number(x, 3)
			} else if v == "" || v == "?" {
				v = e.T("unknown", nil)
			}
		}
		vars[p.Key] = v
	}
	return vars
}

func expectedText(f models.BenchmarkFigure) string {
	if f.Expected == nil {
		return "n/a"
	}
	return num(f.Expected)
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
