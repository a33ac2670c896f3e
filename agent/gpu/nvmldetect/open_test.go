package nvmldetect_test

import (
	"context"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
	"github.com/gpunex/gpunex/agent/gpu/nvmldetect"
)

func TestOpenPicksNVMLWithoutSimulate(t *testing.T) {
	t.Parallel()
	srv := dgxh100.New()
	for _, d := range srv.Devices {
		withReadings(d.(*server.Device))
	}
	det, err := nvmldetect.Open("", srv)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, det.Close()) })
	require.IsType(t, &nvmldetect.Detector{}, det)
	require.Len(t, srv.InitCalls(), 1)

	devices, err := det.Inventory(context.Background())
	require.NoError(t, err)
	require.Len(t, devices, 8)
	require.False(t, devices[0].Simulated)
}

func TestOpenPicksSimulatorWithSimulate(t *testing.T) {
	t.Parallel()
	srv := dgxh100.New()
	det, err := nvmldetect.Open("2xH100,1xL4", srv, gpu.WithSeed("machine-1"))
	require.NoError(t, err)
	sim, ok := det.(*gpu.Simulator)
	require.True(t, ok)
	require.Empty(t, srv.InitCalls(), "simulation never touches NVML")

	devices, err := sim.Inventory(context.Background())
	require.NoError(t, err)
	require.Len(t, devices, 3)
	require.True(t, devices[0].Simulated)

	_, err = nvmldetect.Open("2xH100,1xL4", nil)
	require.NoError(t, err, "simulation needs no NVML library at all")
}

func TestOpenRejectsABadSimulateSpec(t *testing.T) {
	t.Parallel()
	det, err := nvmldetect.Open("3xH900", dgxh100.New())
	require.Nil(t, det)
	require.ErrorContains(t, err, `--simulate "3xH900"`)
	require.False(t, gpu.IsUnavailable(err))
}

func TestOpenWithoutNVIDIALibraryFallsBackToUnavailable(t *testing.T) {
	t.Parallel()
	det, err := nvmldetect.Open("", nvml.New(nvml.WithLibraryPath("/nonexistent/libnvidia-ml.so.1")))
	require.ErrorIs(t, err, gpu.ErrNoNVML)
	require.ErrorContains(t, err, "install the NVIDIA driver and the NVIDIA Container Toolkit")
	require.ErrorContains(t, err, "--simulate 2xH100,1xL4")
	require.IsType(t, gpu.Unavailable{}, det)

	// The fallback keeps answering with the same explanation.
	_, invErr := det.Inventory(context.Background())
	require.Equal(t, err, invErr)
	_, telErr := det.Telemetry(context.Background())
	require.Equal(t, err, telErr)
	require.NoError(t, det.Close())

	_, err = nvmldetect.Open("", nil)
	require.ErrorIs(t, err, gpu.ErrNoNVML)
}
