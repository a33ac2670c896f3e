package models_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/models"
)

func TestDateTimeIsWrittenInUTCAtMicroseconds(t *testing.T) {
	t.Parallel()
	lisbon := time.FixedZone("WEST", 3600)
	cases := []struct {
		desc string
		in   time.Time
		want string
	}{
		{desc: "nanoseconds are truncated, not rounded", in: time.Date(2026, 11, 29, 22, 34, 58, 760052999, time.UTC), want: `"2026-11-29T22:34:58.760052Z"`},
		{desc: "microseconds stay", in: time.Date(2026, 11, 29, 22, 34, 58, 760052000, time.UTC), want: `"2026-11-29T22:34:58.760052Z"`},
		{desc: "trailing zeros go", in: time.Date(2026, 11, 29, 22, 34, 58, 500000000, time.UTC), want: `"2026-11-29T22:34:58.5Z"`},
		{desc: "whole seconds have no fraction", in: time.Date(2026, 11, 29, 22, 34, 37, 999, time.UTC), want: `"2026-11-29T22:34:37Z"`},
		{desc: "another zone is written in UTC", in: time.Date(2026, 11, 29, 23, 34, 37, 0, lisbon), want: `"2026-11-29T22:34:37Z"`},
		{desc: "the zero time is null", in: time.Time{}, want: `null`},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			models.MarshalDateTime(tc.in).MarshalGQL(&b)
			require.Equal(t, tc.want, b.String())
		})
	}
}

func TestDateTimeIsReadFromRFC3339(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc string
		in   any
		want time.Time
		bad  bool
	}{
		{desc: "UTC", in: "2026-11-29T22:34:37Z", want: time.Date(2026, 11, 29, 22, 34, 37, 0, time.UTC)},
		{desc: "an offset, returned in UTC", in: "2026-11-29T23:34:37+01:00", want: time.Date(2026, 11, 29, 22, 34, 37, 0, time.UTC)},
		{desc: "nanoseconds, kept to microseconds", in: "2026-11-29T22:34:58.760052221Z", want: time.Date(2026, 11, 29, 22, 34, 58, 760052000, time.UTC)},
		{desc: "no zone", in: "2026-11-29T22:34:37", bad: true},
		{desc: "a date only", in: "2026-11-29", bad: true},
		{desc: "empty", in: "", bad: true},
		{desc: "a number", in: 1764455677, bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got, err := models.UnmarshalDateTime(tc.in)
			if tc.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, time.UTC, got.Location())
		})
	}
}
