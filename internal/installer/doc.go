// Package installer serves the GPUnex agent installer, the shell script a
// provider pipes into sh in step 3 of the provider journey ("Install the
// agent").
//
// The approval email and the Agent tokens page tell a provider to run
//
//	curl -fsSL https://gpunex.example.com/agent/install.sh | sudo sh
//
// ([Command]). The script asks for the agent token on the terminal, read
// from /dev/tty (its stdin is the pipe) with echo turned off by stty and
// turned back on once it is read, and by traps on Ctrl-C, hang-up, TERM
// and exit. Where no terminal exists (cloud-init, configuration
// management) the provider writes the token to a file only root can read
// and names it ([TokenFileCommand]):
//
//	curl -fsSL https://gpunex.example.com/agent/install.sh | sudo sh -s -- --token-file /root/gpunex-token
//
// or GPUNEX_TOKEN_FILE=PATH. The token is never an argument of any
// command the product suggests or the script runs: a command line is
// readable by every user of the host (ps, /proc/<pid>/cmdline) for as
// long as the program runs, and interactive shells keep it in their
// history; `sudo GPUNEX_TOKEN=… sh`, which the installer once suggested,
// put it on sudo's command line for the whole install. The script
// refuses a token given as an argument, without echoing it.
//
// GPUNEX_TOKEN in the environment is still accepted, for automation
// that already runs as root with the token in its environment (a
// root-owned process's environment, /proc/<pid>/environ, is readable by
// root only, unlike its command line); the script's comments say never to
// set it on the sudo command line and to prefer the file. Dropping it
// would break such automation without protecting anyone from root.
//
// The script is POSIX sh, kept shellcheck-clean, and
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
//  4. Egress firewall: customer jobs' networks take their subnets from
//     10.231.0.0/16 (the agent's docker.SubnetPool; a test keeps the two
//     equal). The script writes <GPUNEX_LIB_DIR>/egress-firewall (default
//     /usr/local/lib/gpunex) and runs it: chain GPUNEX-EGRESS, jumped to
//     first in DOCKER-USER for traffic from the pool, rejects private
//     (10/8, 172.16/12, 192.168/16), shared (100.64/10) and link-local
//     (169.254/16, cloud metadata) destinations; GPUNEX-HOST, first in
//     INPUT, rejects traffic from the pool to the host itself but replies
//     to the host's own connections. Both let DNS through to the
//     nameservers of /etc/resolv.conf and /run/systemd/resolve/resolv.conf,
//     which Docker's embedded resolver forwards jobs' queries to. Re-running
//     it empties and refills the chains and adds a jump only if missing.
//     With systemd, gpunex-egress.service (oneshot, After= and PartOf=
//     docker.service, WantedBy=docker.service) applies it again whenever
//     Docker starts or restarts, so at every boot; without systemctl the
//     rules hold until reboot and the script says how to re-apply them.
//     No iptables, an iptables that fails (not root, no DOCKER-USER chain:
//     Docker without its iptables rules) or a unit systemd will not enable
//     is fatal, with the fix, unless GPUNEX_ALLOW_LAN_EGRESS=1, which skips
//     the step with a warning that jobs can reach the LAN, the host and
//     cloud metadata.
//  5. Token: from --token-file or GPUNEX_TOKEN_FILE (read by the shell,
//     one line; blank lines and a CR are forgiven), else GPUNEX_TOKEN,
//     else typed on the terminal. A token from a file or the environment
//     is checked before step 1, and with neither and no terminal the
//     script stops there, saying how to give one. Empty tokens and tokens
//     without the agent prefix "gpx_a_" (or with characters outside
//     base64url) are refused. The token is never printed and never put on
//     a command line.
//  6. Configuration: GPUNEX_SERVER and GPUNEX_TOKEN are written to
//     agent.env (mode 600) in GPUNEX_CONFIG_DIR, default /etc/gpunex.
//  7. Container: the agent image is pulled (so re-running the installer
//     upgrades), a previous gpunex-agent container is removed, and
//     `docker run -d --name gpunex-agent --restart unless-stopped --gpus all
//     --env-file <config> -v gpunex-agent-data:/var/lib/gpunex-agent
//     -v <socket>:/var/run/docker.sock --group-add <socket's gid> <image>`
//     starts the agent (image overridable with GPUNEX_AGENT_IMAGE). The
//     socket is GPUNEX_DOCKER_SOCKET, default /var/run/docker.sock, checked
//     to exist with Docker in step 1; --group-add lets the non-root agent
//     use it.
//  8. It prints how to check the agent: `docker ps | grep gpunex-agent` and
//     `docker logs -f gpunex-agent`.
//
// The tests serve the script over real HTTP and run it with sh, with
// stand-in docker, nvidia-smi, iptables (keeping a filter table in files)
// and systemctl programs on PATH that record their calls, and wrappers
// that record the command line of every other program the script starts,
// through every path above, including a token typed on a pseudo-terminal
// (echo off while it is typed, on again after, even after Ctrl-C);
// another test runs shellcheck on the rendered script and on the firewall
// script it writes.
package installer
