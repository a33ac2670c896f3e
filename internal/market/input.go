package market

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/distribution/reference"

	"github.com/gpunex/gpunex/agent/protocol"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
)

// The bounds of a rental's container input.
const (
	MaxImageBytes   = 512
	MaxCommandArgs  = 64
	MaxArgBytes     = 4096
	MaxEnvVars      = 64
	MaxEnvNameBytes = 128
	MaxEnvValBytes  = 4096
	// MaxSpecBytes bounds the command and environment together.
	MaxSpecBytes = 64 << 10
	// MinRentalTime is the least time an endBy may leave.
	MinRentalTime = time.Minute
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// EnvVar is one environment variable of a rental's container. Its value
// goes to the agent and is never shown again.
type EnvVar struct {
	Name, Value string
}

// StartInput is what startRental asks: a listing, or a model (with a
// filter) for the scheduler to place, and the container to run.
type StartInput struct {
	ListingID *string
	Model     *string
	Filter    *Filter
	GpuCount  int
	Image     string
	Command   []string
	Env       []EnvVar
	// EndBy is the end the customer accepts (before maintenance).
	EndBy *time.Time
}

// validateStart checks in against now; it reads nothing.
func validateStart(in *StartInput, now time.Time) error {
	v := &fault.Validation{}
	if in.GpuCount < 1 {
		v.Add("input.gpuCount", fault.OutOfRange, "rent at least one GPU")
	}
	switch {
	case in.ListingID != nil:
		if _, k, ok := parseListingID(*in.ListingID); !ok {
			v.Add("input.listingId", fault.InvalidValue, "not a listing id")
		} else if in.Model != nil && *in.Model != k {
			v.Add("input.model", fault.InvalidValue, "the listing is of another model")
		}
	case in.Model == nil:
		v.Add("input.listingId", fault.Required, "give a listing, or a model for the scheduler to place")
	case catalog.ByKey(*in.Model) == nil:
		v.Add("input.model", fault.UnknownModel, "not a supported GPU model key")
	}
	validateFilter(in.Filter, "input.filter", v)
	validateImage(in.Image, v)
	size := 0
	if len(in.Command) > MaxCommandArgs {
		v.Add("input.command", fault.TooMany, fmt.Sprintf("at most %d arguments", MaxCommandArgs))
	}
	for i, a := range in.Command {
		size += len(a)
		field := "input.command." + strconv.Itoa(i)
		switch {
		case len(a) > MaxArgBytes:
			v.Add(field, fault.TooLong, fmt.Sprintf("at most %d bytes", MaxArgBytes))
		case !utf8.ValidString(a) || strings.ContainsRune(a, 0):
			v.Add(field, fault.InvalidValue, "must be UTF-8 text without NUL")
		}
	}
	if len(in.Env) > MaxEnvVars {
		v.Add("input.env", fault.TooMany, fmt.Sprintf("at most %d variables", MaxEnvVars))
	}
	seen := map[string]bool{}
	for i, e := range in.Env {
		size += len(e.Name) + len(e.Value) + 1
		field := "input.env." + strconv.Itoa(i)
		switch {
		case len(e.Name) > MaxEnvNameBytes:
			v.Add(field+".name", fault.TooLong, fmt.Sprintf("at most %d characters", MaxEnvNameBytes))
		case !envName.MatchString(e.Name):
			v.Add(field+".name", fault.InvalidValue, "letters, digits and _, not starting with a digit")
		case seen[e.Name]:
			v.Add(field+".name", fault.Duplicate, "the variable is given twice")
		}
		seen[e.Name] = true
		switch {
		case len(e.Value) > MaxEnvValBytes:
			v.Add(field+".value", fault.TooLong, fmt.Sprintf("at most %d bytes", MaxEnvValBytes))
		case !utf8.ValidString(e.Value) || strings.ContainsRune(e.Value, 0):
			v.Add(field+".value", fault.InvalidValue, "must be UTF-8 text without NUL")
		}
	}
	if size > MaxSpecBytes {
		v.Add("input.env", fault.TooLong, fmt.Sprintf("the command and environment together are at most %d bytes", MaxSpecBytes))
	}
	if in.EndBy != nil && in.EndBy.Before(now.Add(MinRentalTime)) {
		v.Add("input.endBy", fault.OutOfRange, "must be at least a minute from now")
	}
	return v.Err()
}

// validateImage checks that image parses as a Docker reference.
func validateImage(image string, v *fault.Validation) {
	switch {
	case strings.TrimSpace(image) == "":
		v.Add("input.image", fault.Required, "give a container image, e.g. docker.io/library/python:3.12")
	case len(image) > MaxImageBytes:
		v.Add("input.image", fault.TooLong, fmt.Sprintf("at most %d characters", MaxImageBytes))
	default:
		if _, err := reference.ParseNormalizedNamed(image); err != nil {
			v.Add("input.image", fault.InvalidValue, "not a container image reference: "+err.Error())
		}
	}
}

// validateReport checks an agent's job report; it reads nothing.
func validateReport(in *protocol.ReportJobStatusInput, now time.Time) error {
	v := &fault.Validation{}
	if in.JobID == "" {
		v.Add("input.jobId", fault.Required, "name the job")
	} else if len(in.JobID) > 128 {
		v.Add("input.jobId", fault.TooLong, "at most 128 characters")
	}
	switch in.State {
	case protocol.JobStarting, protocol.JobRunning, protocol.JobCompleted, protocol.JobFailed:
	default:
		v.Add("input.state", fault.InvalidValue, "not a job state")
	}
	if in.At.IsZero() {
		v.Add("input.at", fault.Required, "say when the state was reached")
	} else if in.At.After(now.Add(5 * time.Minute)) {
		v.Add("input.at", fault.InFuture, "later than the server's clock allows")
	}
	if in.Cause != nil {
		switch *in.Cause {
		case protocol.CauseProvider, protocol.CauseCustomer, protocol.CausePlatform:
		default:
			v.Add("input.cause", fault.InvalidValue, "not a cause")
		}
	} else if in.State == protocol.JobFailed {
		v.Add("input.cause", fault.Required, "a failure says whose side it is on")
	}
	if in.Message != nil && len(*in.Message) > 2000 {
		v.Add("input.message", fault.TooLong, "at most 2000 bytes")
	}
	if in.LogTail != nil && len(*in.LogTail) > protocol.MaxLogTailBytes {
		v.Add("input.logTail", fault.TooLong, fmt.Sprintf("at most %d bytes", protocol.MaxLogTailBytes))
	}
	return v.Err()
}
