#!/bin/sh
# GPUnex agent installer, served by {{.ServerURL}}{{.Path}}
#
# It checks Docker and the NVIDIA Container Toolkit, takes your agent token,
# writes the agent configuration and starts the gpunex-agent container as a
# background service that restarts with the machine.
#
#   curl -fsSL {{.ServerURL}}{{.Path}} | sudo GPUNEX_TOKEN={{.TokenPrefix}}... sh
#   curl -fsSL {{.ServerURL}}{{.Path}} | sudo sh     (asks for the token)
#
# Settings (environment variables, all optional):
#   GPUNEX_TOKEN             agent token ({{.TokenPrefix}}...); asked for on the terminal if unset
#   GPUNEX_SERVER            platform URL (default: the server this script came from)
#   GPUNEX_AGENT_IMAGE       agent container image (default: the one the server names)
#   GPUNEX_CUDA_TEST_IMAGE   image used to check GPU access from containers
#   GPUNEX_CONFIG_DIR        where agent.env is written (default: /etc/gpunex)
#   GPUNEX_DOCKER_SOCKET     the Docker daemon's socket, given to the agent (default: /var/run/docker.sock)
#
# The whole script is one function called on its last line, so a download
# cut short runs nothing. The token is never printed and never put on a
# command line: it goes to a mode-600 file that docker reads with --env-file.

set -eu

gpunex_install() {
	server=${GPUNEX_SERVER:-{{shquote .ServerURL}}}
	agent_image=${GPUNEX_AGENT_IMAGE:-{{shquote .AgentImage}}}
	cuda_image=${GPUNEX_CUDA_TEST_IMAGE:-nvidia/cuda:12.4.1-base-ubuntu22.04}
	config_dir=${GPUNEX_CONFIG_DIR:-/etc/gpunex}
	config_file="$config_dir/agent.env"
	docker_socket=${GPUNEX_DOCKER_SOCKET:-/var/run/docker.sock}
	container=gpunex-agent
	token_prefix={{shquote .TokenPrefix}}

	case $server in
	http://* | https://*) ;;
	*) die "GPUNEX_SERVER must be an http:// or https:// URL." ;;
	esac
	case $server in
	*[[:space:]]* | *[[:cntrl:]]*) die "GPUNEX_SERVER must not contain spaces or control characters." ;;
	esac

	say "GPUnex agent installer for $server"

	# A token given in the environment is checked before the slow steps.
	if [ -n "${GPUNEX_TOKEN:-}" ]; then
		check_token "$GPUNEX_TOKEN"
	fi

	step "Checking Docker"
	if ! command -v docker >/dev/null 2>&1; then
		die "Docker is not installed (no 'docker' command on PATH).
Install Docker Engine, then run this installer again:
  https://docs.docker.com/engine/install/
  or, on most Linux distributions: curl -fsSL https://get.docker.com | sh"
	fi
	if ! out=$(docker info 2>&1 </dev/null); then
		die "Docker is installed but 'docker info' failed, so the Docker daemon does not answer.
$(indent "$out")
Start Docker (sudo systemctl enable --now docker) and run this installer as root
or as a user in the 'docker' group, then run it again."
	fi
	ok "Docker is installed and the daemon answers"
	# The agent runs as a non-root user and starts jobs through this socket,
	# so it joins the socket's group (--group-add).
	case $docker_socket in
	/*) ;;
	*) die "GPUNEX_DOCKER_SOCKET must be an absolute path." ;;
	esac
	case $docker_socket in
	*:* | *,* | *[[:space:]]* | *[[:cntrl:]]*) die "GPUNEX_DOCKER_SOCKET must not contain ':', ',', spaces or control characters." ;;
	esac
	if [ ! -e "$docker_socket" ]; then
		die "The Docker socket $docker_socket does not exist. The agent starts jobs through it.
If the Docker daemon listens on another socket, set GPUNEX_DOCKER_SOCKET to its path, then run this installer again."
	fi
	if ! docker_gid=$(stat -c %g -- "$docker_socket" 2>&1 </dev/null); then
		die "Cannot read the group of the Docker socket $docker_socket.
$(indent "$docker_gid")"
	fi
	ok "the agent reaches Docker through $docker_socket (group $docker_gid)"

	step "Checking the NVIDIA driver"
	if ! command -v nvidia-smi >/dev/null 2>&1; then
		die "The NVIDIA driver is not installed (no 'nvidia-smi' command on PATH).
Install the NVIDIA driver for your GPUs, reboot, check that 'nvidia-smi' lists them,
then run this installer again: https://www.nvidia.com/Download/index.aspx"
	fi
	if ! gpus=$(nvidia-smi -L 2>&1 </dev/null); then
		die "'nvidia-smi -L' failed, so the NVIDIA driver is not working.
$(indent "$gpus")
Fix the driver (a reboot after installing or upgrading it is often enough), then run this installer again."
	fi
	ok "NVIDIA driver works:"
	indent "$gpus"

	step "Checking the NVIDIA Container Toolkit (docker run --rm --gpus all $cuda_image nvidia-smi)"
	if ! out=$(docker run --rm --gpus all "$cuda_image" nvidia-smi 2>&1 </dev/null); then
		die "Containers cannot use the GPUs: 'docker run --rm --gpus all $cuda_image nvidia-smi' failed.
$(indent "$out")
Install the NVIDIA Container Toolkit (package nvidia-container-toolkit) and make Docker use it:
  https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html
  sudo nvidia-ctk runtime configure --runtime=docker
  sudo systemctl restart docker
then run this installer again. (If the output above says the image could not be pulled,
check this machine's internet access, or set GPUNEX_CUDA_TEST_IMAGE to a CUDA image you have.)"
	fi
	ok "containers can use the GPUs"

	step "Agent token"
	token=${GPUNEX_TOKEN:-}
	if [ -z "$token" ]; then
		if (: </dev/tty) 2>/dev/null; then
			token=$(read_secret "Paste your agent token ($token_prefix...; input is hidden): ")
		else
			die "No agent token. Set GPUNEX_TOKEN, for example:
  curl -fsSL $server{{.Path}} | sudo GPUNEX_TOKEN=${token_prefix}... sh
or run the installer from a terminal so it can ask for the token.
Create a token in the GPUnex dashboard (Agent tokens)."
		fi
	fi
	check_token "$token"
	ok "token accepted (not shown)"

	step "Writing the agent configuration to $config_file"
	write_config "$config_dir" "$config_file" "$server" "$token"
	ok "wrote $config_file (mode 600)"

	step "Pulling the agent image $agent_image"
	if ! out=$(docker pull "$agent_image" 2>&1 </dev/null); then
		die "Could not pull $agent_image.
$(indent "$out")
Check this machine's internet access (or set GPUNEX_AGENT_IMAGE), then run this installer again."
	fi
	ok "pulled $agent_image"

	step "Starting the $container container"
	if docker container inspect "$container" >/dev/null 2>&1 </dev/null; then
		say "  removing the previous $container container"
		if ! out=$(docker rm -f "$container" 2>&1 </dev/null); then
			die "Could not remove the previous $container container.
$(indent "$out")"
		fi
	fi
	if ! out=$(docker run -d --name "$container" --restart unless-stopped --gpus all \
		--env-file "$config_file" \
		-v gpunex-agent-data:/var/lib/gpunex-agent \
		-v "$docker_socket":/var/run/docker.sock \
		--group-add "$docker_gid" \
		"$agent_image" 2>&1 </dev/null); then
		die "Could not start the $container container.
$(indent "$out")"
	fi
	ok "$container is running and restarts with Docker (--restart unless-stopped)"

	say ""
	say "Done. Within a minute this machine and its GPUs show \"Online\" in your dashboard at $server"
	say "Check the agent with:"
	say "  docker ps | grep $container"
	say "  docker logs -f $container"
}

say() { printf '%s\n' "$*"; }
step() { printf '\n==> %s\n' "$*"; }
ok() { printf '    ok: %s\n' "$*"; }
indent() { printf '%s\n' "$1" | while IFS= read -r line; do printf '    | %s\n' "$line"; done; }

die() {
	printf '\nerror: %s\n' "$*" >&2
	exit 1
}

# read_secret PROMPT: reads one line from the terminal with echo turned off
# and prints it on stdout (captured by the caller, never shown).
read_secret() {
	saved=''
	if command -v stty >/dev/null 2>&1; then
		saved=$(stty -g </dev/tty 2>/dev/null) || saved=''
	fi
	if [ -n "$saved" ]; then
		trap 'stty "$saved" </dev/tty 2>/dev/null; exit 130' INT TERM HUP
		stty -echo </dev/tty 2>/dev/null || :
	fi
	printf '%s' "$1" >/dev/tty
	secret=''
	IFS= read -r secret </dev/tty || :
	if [ -n "$saved" ]; then
		stty "$saved" </dev/tty 2>/dev/null || :
		trap - INT TERM HUP
	fi
	printf '\n' >/dev/tty
	printf '%s' "$secret"
}

# check_token TOKEN: refuses an empty or malformed token without showing it.
check_token() {
	case $1 in
	'') die "The agent token is empty. Paste the token shown when you created it in the GPUnex dashboard (Agent tokens); it starts with $token_prefix." ;;
	"$token_prefix"*) ;;
	*) die "That is not an agent token: agent tokens start with $token_prefix. Create one in the GPUnex dashboard (Agent tokens); a session or API token will not work." ;;
	esac
	case ${1#"$token_prefix"} in
	'' | *[!A-Za-z0-9_-]*) die "The agent token is malformed: after $token_prefix it must contain only letters, digits, '-' and '_'. Copy it again, without spaces or line breaks." ;;
	esac
}

# write_config DIR FILE SERVER TOKEN: writes the docker --env-file FILE in
# DIR atomically (a temporary file renamed into place), readable by its owner
# only. printf is a shell builtin, so the token never shows in a process list.
write_config() {
	if ! mkdir -p -- "$1" 2>/dev/null; then
		die "Cannot create $1. Run the installer as root (curl ... | sudo sh), or set GPUNEX_CONFIG_DIR."
	fi
	tmp="$2.tmp.$$"
	if ! (umask 077 && printf 'GPUNEX_SERVER=%s\nGPUNEX_TOKEN=%s\n' "$3" "$4" >"$tmp") 2>/dev/null; then
		rm -f -- "$tmp"
		die "Cannot write $2. Run the installer as root (curl ... | sudo sh), or set GPUNEX_CONFIG_DIR."
	fi
	chmod 600 -- "$tmp"
	mv -f -- "$tmp" "$2"
}

gpunex_install "$@"
