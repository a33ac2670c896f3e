package config

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

// maxFileSize bounds the config file; the installer's is under 200 bytes.
const maxFileSize = 64 << 10

// keyPattern is a portable environment variable name.
var keyPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// readFile parses an env-style file into its KEY=VALUE pairs. Error
// messages name the file and line but never quote a line, which may hold
// the token.
func readFile(path string) (map[string]string, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("config: --config (GPUNEX_CONFIG): %s does not exist; the installer writes /etc/gpunex/agent.env", path)
		}
		return nil, nil, fmt.Errorf("config: --config (GPUNEX_CONFIG): unable to read %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, nil, fmt.Errorf("config: %s: larger than %d KiB; is it the right file?", path, maxFileSize>>10)
	}
	return parseFile(path, string(data))
}

// parseFile is readFile without the reading, for tests.
func parseFile(path, text string) (map[string]string, []string, error) {
	known := map[string]bool{}
	for _, s := range fileSettings {
		known[s.env] = true
	}
	values := map[string]string{}
	var warnings []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), maxFileSize)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !keyPattern.MatchString(key) {
			return nil, nil, fmt.Errorf("config: %s line %d: want KEY=VALUE, e.g. GPUNEX_SERVER=https://gpunex.example.com", path, n)
		}
		value, err := unquote(strings.TrimSpace(value))
		if err != nil {
			return nil, nil, fmt.Errorf("config: %s line %d (%s): %w", path, n, key, err)
		}
		if !known[key] {
			if key != settingConfig.env {
				warnings = append(warnings, fmt.Sprintf("config file %s line %d: unknown key %s ignored", path, n, key))
			}
			continue
		}
		values[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return values, warnings, nil
}

// unquote strips one pair of matching quotes, as shells and systemd do.
func unquote(v string) (string, error) {
	if len(v) == 0 || (v[0] != '"' && v[0] != '\'') {
		return v, nil
	}
	if len(v) < 2 || v[len(v)-1] != v[0] {
		return "", errors.New("the value opens a quote it does not close")
	}
	return v[1 : len(v)-1], nil
}

// filePermissionWarning warns when a file holding the token can be read by
// other users.
func filePermissionWarning(path string) string {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("config file %s holds the agent token but others may read it (mode %#o): run chmod 600 %s", path, st.Mode().Perm(), path)
}
