package nvmldetect_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu/nvmldetect"
)

// TestNVMLOnRealHardware runs the detector against the host's real NVIDIA
// library. It is skipped unless GPUNEX_REAL_NVML=1, since CI has no GPU;
// on a GPU host compare its log with
//
//	nvidia-smi --query-gpu=name,uuid,memory.total,driver_version,pci.bus_id --format=csv
func TestNVMLOnRealHardware(t *testing.T) {
	if os.Getenv("GPUNEX_REAL_NVML") != "1" {
		t.Skip("set GPUNEX_REAL_NVML=1 on a host with an NVIDIA GPU")
	}
	det, err := nvmldetect.Open("", nvml.New())
	require.NoError(t, err)
	defer func() { require.NoError(t, det.Close()) }()
	ctx := context.Background()

	devices, err := det.Inventory(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, devices)
	for _, d := range devices {
		out, _ := json.Marshal(d)
		t.Logf("inventory: %s", out)
		require.True(t, strings.HasPrefix(d.UUID, "GPU-"), d.UUID)
		require.NotEmpty(t, d.Name)
		require.NotNil(t, d.VRAMBytes)
		require.NotEmpty(t, d.DriverVersion)
		require.NotEmpty(t, d.CUDADriverVersion)
		require.NotEmpty(t, d.PCIBusID)
		require.False(t, d.Simulated)
	}

	samples, err := det.Telemetry(ctx)
	require.NoError(t, err)
	require.Len(t, samples, len(devices))
	for _, s := range samples {
		out, _ := json.Marshal(s)
		t.Logf("telemetry: %s", out)
		require.Equal(t, devices[s.Index].UUID, s.UUID)
	}
}
