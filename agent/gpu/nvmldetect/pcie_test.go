package nvmldetect_test

import (
	"context"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/agent/gpu"
)

// withLink gives a mock device a PCIe link: gen/width as it runs and at
// most.
func withLink(d *server.Device, gen, width, maxGen, maxWidth int) {
	d.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return gen, nvml.SUCCESS }
	d.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return width, nvml.SUCCESS }
	d.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return maxGen, nvml.SUCCESS }
	d.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return maxWidth, nvml.SUCCESS }
}

func TestNVMLPCIeLinksReadCurrentAndMaximum(t *testing.T) {
	t.Parallel()
	b := setupNVML(t, dgxh200.New())
	for i := range b.server.Devices {
		withLink(b.device(i), 5, 16, 5, 16)
	}
	withLink(b.device(3), 1, 4, 5, 16) // a board that trained down
	notSupported := func() (int, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	b.device(5).GetCurrPcieLinkGenerationFunc = notSupported
	b.device(5).GetCurrPcieLinkWidthFunc = notSupported

	var _ gpu.LinkReader = b.detector
	links, err := b.detector.PCIeLinks(context.Background())
	require.NoError(t, err)
	require.Len(t, links, 8)
	require.Equal(t, gpu.PCIeLink{Index: 0, UUID: b.device(0).UUID,
		Generation: ptr(5), Width: ptr(16), MaxGeneration: ptr(5), MaxWidth: ptr(16)}, links[0])
	require.Equal(t, 1, *links[3].Generation)
	require.Equal(t, 4, *links[3].Width)
	require.Equal(t, 5, *links[3].MaxGeneration)
	require.Nil(t, links[5].Generation, "not supported is left unset")
	require.Nil(t, links[5].Width)
	require.Equal(t, 16, *links[5].MaxWidth)
}
