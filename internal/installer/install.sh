#!/bin/sh
# GPUnex agent installer, served by {{.ServerURL}}{{.Path}}
#
# It checks Docker and the NVIDIA Container Toolkit, installs a host firewall
# that keeps customer jobs off your local network, this host and cloud
# metadata endpoints, takes your agent token, writes the agent configuration
# and starts the gpunex-agent container as a background service that
# restarts with the machine.
#
#   curl -fsSL {{.ServerURL}}{{.Path}} | sudo sh
#
# asks for the token on the terminal, with typing hidden. Without a terminal
# (cloud-init, Ansible, ssh without -t), put the token in a file only root
# can read and give its path:
#
#   curl -fsSL {{.ServerURL}}{{.Path}} | sudo sh -s -- --token-file /root/gpunex-token
#
# The token is never an argument: a command line (sudo's, sh's, any
# program's) can be read by every user of the host (ps, /proc/<pid>/cmdline)
# and is kept in shell history.
#
# Settings (environment variables, all optional):
#   GPUNEX_TOKEN_FILE        a file holding the agent token, like --token-file
#   GPUNEX_TOKEN             the agent token itself, for automation that already runs as root
#                            with it in its environment: only root can read a root process's
#                            environment. Never write "sudo GPUNEX_TOKEN=... sh": that puts it
#                            on sudo's command line, which every user can read. Prefer the file.
#   GPUNEX_SERVER            platform URL (default: the server this script came from)
#   GPUNEX_AGENT_IMAGE       agent container image (default: the one the server names)
#   GPUNEX_CUDA_TEST_IMAGE   image used to check GPU access from containers
#   GPUNEX_CONFIG_DIR        where agent.env is written (default: /etc/gpunex)
#   GPUNEX_DOCKER_SOCKET     the Docker daemon's socket, given to the agent (default: /var/run/docker.sock)
#   GPUNEX_LIB_DIR           where the egress firewall script is written (default: /usr/local/lib/gpunex)
#   GPUNEX_SYSTEMD_UNIT_DIR  where its systemd unit is written (default: /etc/systemd/system)
#   GPUNEX_ALLOW_LAN_EGRESS  1 skips the egress firewall: jobs can then reach your local
#                            network, this host and cloud metadata (not recommended)
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
	# Every job network's subnet comes from this pool (the agent's
	# docker.SubnetPool); the egress firewall matches job traffic by it.
	job_pool=10.231.0.0/16
	lib_dir=${GPUNEX_LIB_DIR:-/usr/local/lib/gpunex}
	firewall_script="$lib_dir/egress-firewall"
	unit_dir=${GPUNEX_SYSTEMD_UNIT_DIR:-/etc/systemd/system}
	unit=gpunex-egress.service

	case $server in
	http://* | https://*) ;;
	*) die "GPUNEX_SERVER must be an http:// or https:// URL." ;;
	esac
	case $server in
	*[[:space:]]* | *[[:cntrl:]]*) die "GPUNEX_SERVER must not contain spaces or control characters." ;;
	esac

	token_file=${GPUNEX_TOKEN_FILE:-}
	while [ $# -gt 0 ]; do
		case $1 in
		--token-file)
			[ $# -ge 2 ] || die "--token-file needs the path of a file holding the agent token."
			token_file=$2
			shift 2
			;;
		--token-file=*)
			token_file=${1#--token-file=}
			shift
			;;
		--token | --token=* | gpx_*)
			# Not echoed: it may be the token itself.
			die "The installer does not take the token as an argument: every user of this host can read
a command line (ps, /proc/<pid>/cmdline) and your shell keeps it in its history.
Run it from a terminal and paste the token when asked:
  curl -fsSL $server{{.Path}} | sudo sh
or put the token in a file only root can read and give its path:
  curl -fsSL $server{{.Path}} | sudo sh -s -- --token-file /root/gpunex-token"
			;;
		*) die "Unknown argument. The installer takes only --token-file PATH." ;;
		esac
	done

	say "GPUnex agent installer for $server"

	# A token from a file or the environment is read and checked before the
	# slow steps; one typed on the terminal is asked for once the host has
	# passed them.
	token=''
	if [ -n "$token_file" ]; then
		token=$(read_token_file "$token_file")
		check_token "$token"
	elif [ -n "${GPUNEX_TOKEN:-}" ]; then
		token=$GPUNEX_TOKEN
		check_token "$token"
	elif ! (: </dev/tty) 2>/dev/null; then
		die "No agent token, and no terminal to ask for it on.
Run the installer from a terminal and paste the token when it asks:
  curl -fsSL $server{{.Path}} | sudo sh
or put the token in a file only root can read and give its path:
  curl -fsSL $server{{.Path}} | sudo sh -s -- --token-file /root/gpunex-token
Create a token in the GPUnex dashboard (Agent tokens)."
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

	step "Keeping jobs off your network (egress firewall for the job subnets $job_pool)"
	if [ "${GPUNEX_ALLOW_LAN_EGRESS:-}" = 1 ]; then
		warn "GPUNEX_ALLOW_LAN_EGRESS=1: no egress firewall installed. Customer jobs can reach your
local network, this host and cloud metadata endpoints (169.254.169.254).
If an earlier run installed the firewall, it stays until you run:
  sudo systemctl disable $unit; sudo sh $firewall_script remove"
	else
		install_firewall
	fi

	step "Agent token"
	if [ -n "$token_file" ]; then
		ok "token read from $token_file (not shown)"
	elif [ -n "$token" ]; then
		ok "token taken from GPUNEX_TOKEN (not shown)"
	else
		read_secret "Paste your agent token ($token_prefix...; input is hidden): "
		check_token "$token"
		ok "token accepted (not shown)"
	fi

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
	if [ -n "$token_file" ]; then
		say "The token is now in $config_file: you can delete $token_file."
	fi
}

# install_firewall writes the egress firewall script, applies it, and has
# systemd apply it again whenever Docker starts (and so at every boot).
# Every failure but a missing systemd is fatal: the provider guide promises
# that jobs cannot reach the provider's network. GPUNEX_ALLOW_LAN_EGRESS=1
# skips this step instead.
install_firewall() {
	optout="To install anyway, with jobs able to reach your local network, this host and cloud
metadata endpoints, run the installer again with GPUNEX_ALLOW_LAN_EGRESS=1 (not recommended)."
	if ! command -v iptables >/dev/null 2>&1; then
		die "iptables is not installed (no 'iptables' command on PATH). The installer uses it to keep
customer jobs off your local network, this host and cloud metadata endpoints.
Install it (the nftables-backed iptables is fine), then run this installer again:
  Debian/Ubuntu: sudo apt-get install -y iptables
  Fedora/RHEL:   sudo dnf install -y iptables-nft
  Alpine:        sudo apk add iptables
$optout"
	fi
	if ! mkdir -p -- "$lib_dir" 2>/dev/null; then
		die "Cannot create $lib_dir. Run the installer as root (curl ... | sudo sh), or set GPUNEX_LIB_DIR."
	fi
	tmp="$firewall_script.tmp.$$"
	if ! (firewall_script_text >"$tmp") 2>/dev/null; then
		rm -f -- "$tmp"
		die "Cannot write $firewall_script. Run the installer as root (curl ... | sudo sh), or set GPUNEX_LIB_DIR."
	fi
	chmod 755 -- "$tmp"
	mv -f -- "$tmp" "$firewall_script"
	if ! out=$("$firewall_script" apply 2>&1 </dev/null); then
		die "Could not install the egress firewall ('$firewall_script apply' failed).
$(indent "$out")
Run the installer as root (curl ... | sudo sh) and let Docker manage iptables (the default: no
\"iptables\": false and no \"firewall-backend\": \"nftables\" in /etc/docker/daemon.json), then run
this installer again.
$optout"
	fi
	ok "jobs ($job_pool) reach the internet and their DNS servers, but not this host, nor
        10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or 169.254.0.0/16 (cloud metadata)"

	if ! command -v systemctl >/dev/null 2>&1; then
		warn "systemd was not found (no 'systemctl' command), so nothing applies the egress firewall
again at boot. It is in place now and survives Docker restarts, but a reboot removes it: run
  sh $firewall_script apply
at every boot after Docker has started (for example from /etc/local.d/ on OpenRC, or /etc/rc.local)."
		return 0
	fi
	if ! mkdir -p -- "$unit_dir" 2>/dev/null || ! (unit_text >"$unit_dir/$unit") 2>/dev/null; then
		die "Cannot write $unit_dir/$unit. Run the installer as root (curl ... | sudo sh), or set GPUNEX_SYSTEMD_UNIT_DIR.
$optout"
	fi
	if ! out=$(systemctl daemon-reload 2>&1 </dev/null) || ! out=$(systemctl enable --now "$unit" 2>&1 </dev/null); then
		die "Could not enable $unit, which applies the egress firewall again whenever Docker starts.
$(indent "$out")
The firewall is in place now, but a reboot would remove it. Check 'systemctl status $unit'
and 'journalctl -u $unit', then run this installer again.
$optout"
	fi
	ok "$unit applies it again whenever Docker starts (and so at every boot)"
}

# firewall_script_text prints the egress firewall script: the one place the
# rules live. The installer runs it, and so does the systemd unit.
firewall_script_text() {
	printf '#!/bin/sh\n'
	printf '# GPUnex egress firewall, written by the GPUnex agent installer.\n'
	printf '# Usage: sh %s apply|remove\n' "$firewall_script"
	printf 'pool=%s\n' "$job_pool"
	cat <<'EOF'
#
# Customer jobs run in Docker networks whose subnets come from $pool. Their
# traffic may go to the internet, but not to private (10/8, 172.16/12,
# 192.168/16), shared (100.64/10) or link-local (169.254/16: cloud metadata)
# addresses, nor to this host. Forwarded traffic is filtered in DOCKER-USER,
# the chain Docker keeps for rules like these; traffic to the host in INPUT.
#
# Allowed on top: DNS (port 53) to the nameservers of this host's
# resolv.conf files, to which Docker's embedded resolver forwards the jobs'
# queries from the job's own network namespace; and, towards the host,
# replies to connections the host opened. Containers on one job bridge
# cannot talk to each other (the agent sets enable_icc=false) and each job
# has one container, so nothing else is needed. IPv6 is not filtered: job
# networks have none.
#
# apply is idempotent: it empties and refills the GPUNEX-* chains and adds
# each jump only if it is missing.
set -eu
blocked="10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 100.64.0.0/10 169.254.0.0/16"
resolv_confs=${GPUNEX_RESOLV_CONFS:-/etc/resolv.conf /run/systemd/resolve/resolv.conf}

ipt() { iptables -w "$@"; }

# nameservers prints the IPv4 nameservers of the resolv.conf files, once
# each, but loopback ones (those are queried from the host itself).
nameservers() {
	seen=' '
	for f in $resolv_confs; do
		[ -r "$f" ] || continue
		while read -r key addr _; do
			[ "$key" = nameserver ] || continue
			case $addr in
			'' | *[!0-9.]* | 127.*) continue ;;
			esac
			case $seen in
			*" $addr "*) continue ;;
			esac
			seen="$seen$addr "
			printf '%s\n' "$addr"
		done <"$f"
	done
}

# chain NAME creates the chain, or empties it if it exists.
chain() {
	ipt -N "$1" 2>/dev/null || ipt -F "$1"
}

# jump FROM TO puts "-s $pool -j TO" first in FROM unless it is there.
jump() {
	ipt -C "$1" -s "$pool" -j "$2" 2>/dev/null || ipt -I "$1" 1 -s "$pool" -j "$2"
}

apply() {
	if ! err=$(ipt -S DOCKER-USER 2>&1 >/dev/null); then
		printf '%s\n' "$err" >&2
		case $err in
		*"No chain"*) echo "iptables has no DOCKER-USER chain: is Docker running, with its iptables rules on?" >&2 ;;
		esac
		exit 1
	fi
	dns=$(nameservers)
	chain GPUNEX-EGRESS
	for ns in $dns; do
		ipt -A GPUNEX-EGRESS -d "$ns" -p udp --dport 53 -j RETURN
		ipt -A GPUNEX-EGRESS -d "$ns" -p tcp --dport 53 -j RETURN
	done
	for net in $blocked; do
		ipt -A GPUNEX-EGRESS -d "$net" -j REJECT --reject-with icmp-admin-prohibited
	done
	chain GPUNEX-HOST
	ipt -A GPUNEX-HOST -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN
	for ns in $dns; do
		ipt -A GPUNEX-HOST -d "$ns" -p udp --dport 53 -j RETURN
		ipt -A GPUNEX-HOST -d "$ns" -p tcp --dport 53 -j RETURN
	done
	ipt -A GPUNEX-HOST -j REJECT --reject-with icmp-admin-prohibited
	jump DOCKER-USER GPUNEX-EGRESS
	jump INPUT GPUNEX-HOST
}

remove() {
	while ipt -C DOCKER-USER -s "$pool" -j GPUNEX-EGRESS 2>/dev/null; do
		ipt -D DOCKER-USER -s "$pool" -j GPUNEX-EGRESS
	done
	while ipt -C INPUT -s "$pool" -j GPUNEX-HOST 2>/dev/null; do
		ipt -D INPUT -s "$pool" -j GPUNEX-HOST
	done
	for c in GPUNEX-EGRESS GPUNEX-HOST; do
		if ipt -F "$c" 2>/dev/null; then
			ipt -X "$c"
		fi
	done
}

case ${1:-} in
apply) apply ;;
remove) remove ;;
*)
	echo "usage: sh $0 apply|remove" >&2
	exit 2
	;;
esac
EOF
}

# unit_text prints the systemd unit that applies the firewall after Docker
# starts: WantedBy docker.service starts it whenever Docker starts, PartOf
# restarts it with Docker. It has no ExecStop: with live-restore, jobs keep
# running while Docker restarts, so the rules stay.
unit_text() {
	cat <<EOF
[Unit]
Description=GPUnex egress firewall: keeps customer jobs off the local network, this host and cloud metadata
After=docker.service
PartOf=docker.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh $firewall_script apply

[Install]
WantedBy=docker.service multi-user.target
EOF
}

say() { printf '%s\n' "$*"; }
step() { printf '\n==> %s\n' "$*"; }
ok() { printf '    ok: %s\n' "$*"; }
warn() { printf '\nwarning: %s\n' "$*" >&2; }
indent() { printf '%s\n' "$1" | while IFS= read -r line; do printf '    | %s\n' "$line"; done; }

die() {
	printf '\nerror: %s\n' "$*" >&2
	exit 1
}

# read_secret PROMPT: reads one line from the terminal with echo turned off
# into $token (never shown). It runs in this shell, not in a $(...)
# subshell, so the traps that turn echo back on are this shell's: Ctrl-C,
# a hang-up or any exit while it waits leaves the terminal as it was.
read_secret() {
	tty_saved=''
	if command -v stty >/dev/null 2>&1; then
		tty_saved=$(stty -g </dev/tty 2>/dev/null) || tty_saved=''
	fi
	if [ -n "$tty_saved" ]; then
		trap 'restore_tty; exit 130' INT
		trap 'restore_tty; exit 143' TERM
		trap 'restore_tty; exit 129' HUP
		trap restore_tty EXIT
		stty -echo </dev/tty 2>/dev/null || :
	fi
	printf '%s' "$1" >/dev/tty
	token=''
	IFS= read -r token </dev/tty || :
	restore_tty
	trap - INT TERM HUP EXIT
	printf '\n' >/dev/tty
}

# restore_tty turns the terminal's echo back on (its settings as
# read_secret found them), once.
restore_tty() {
	if [ -n "${tty_saved:-}" ]; then
		stty "$tty_saved" </dev/tty 2>/dev/null || :
		tty_saved=''
	fi
}

# read_token_file PATH: prints the token held in the file PATH (its only
# line). The shell reads it: no program gets the token as an argument.
read_token_file() {
	if [ ! -f "$1" ] || [ ! -r "$1" ]; then
		die "Cannot read the token file $1. Write the agent token into it (one line, for example with
your editor, not with echo, which would keep it in your shell's history), make it readable by
root only (chmod 600), then run this installer again."
	fi
	cr=$(printf '\r')
	secret=''
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%"$cr"}
		[ -n "$line" ] || continue
		if [ -n "$secret" ]; then
			die "The token file $1 must hold only the agent token, on one line."
		fi
		secret=$line
	done <"$1"
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
