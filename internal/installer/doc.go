// Package installer serves the GPUnex agent installer, the shell script a
// provider pipes into sh in step 3 of the provider journey ("Install the
// agent").
//
// The approval email tells a provider to run
//
//	curl -fsSL https://gpunex.example.com/agent/install.sh | sudo GPUNEX_TOKEN=gpx_a_... sh
//
// or the same without GPUNEX_TOKEN, in which case the script asks for the
// token on the terminal (read from /dev/tty with echo off, because stdin is
// the script itself). The script is POSIX sh, kept shellcheck-clean, and
// embedded in the server binary as a text/template: [Handler] fills in the
// server's public URL and the agent image on every request, shell-quoted,
// so one binary serves a correct installer behind any host name or proxy.
//
// The script, step by step, each with a message a provider can act on:
//
//  1. Docker: `docker` is on PATH and `docker info` answers; otherwise it
//     says how to install or start Docker and exits non-zero.
//  2. NVIDIA driver: `nvidia-smi -L` lists the GPUs on the host.
//  3. NVIDIA Container Toolkit: `docker run --rm --gpus all <cuda image>
//     nvidia-smi` works (image from GPUNEX_CUDA_TEST_IMAGE); otherwise it
//     names the fix: install nvidia-container-toolkit, run
//     `nvidia-ctk runtime configure --runtime=docker`, restart Docker.
//  4. Token: from GPUNEX_TOKEN or the terminal; empty tokens and tokens
//     without the agent prefix "gpx_a_" (or with characters outside
//     base64url) are refused. The token is never printed and never put on a
//     command line.
//  5. Configuration: GPUNEX_SERVER and GPUNEX_TOKEN are written to
//     agent.env (mode 600) in GPUNEX_CONFIG_DIR, default /etc/gpunex.
//  6. Container: the agent image is pulled (so re-running the installer
//     upgrades), a previous gpunex-agent container is removed, and
//     `docker run -d --name gpunex-agent --restart unless-stopped --gpus all
//     --env-file <config> -v gpunex-agent-data:/var/lib/gpunex-agent
//     -v <socket>:/var/run/docker.sock --group-add <socket's gid> <image>`
//     starts the agent (image overridable with GPUNEX_AGENT_IMAGE). The
//     socket is GPUNEX_DOCKER_SOCKET, default /var/run/docker.sock, checked
//     to exist with Docker in step 1; --group-add lets the non-root agent
//     use it.
//  7. It prints how to check the agent: `docker ps | grep gpunex-agent` and
//     `docker logs -f gpunex-agent`.
//
// The tests serve the script over real HTTP and run it with sh, with
// stand-in docker and nvidia-smi programs on PATH that record their calls,
// through every path above, including a token typed on a pseudo-terminal;
// another test runs shellcheck on the rendered script.
package installer
