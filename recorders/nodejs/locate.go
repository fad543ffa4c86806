package nodejs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// EnvRecorder names the environment variable that points at the
// recorder's folder (recorders/node of a licorice checkout).
const EnvRecorder = "LICORICE_NODE_RECORDER"

// entry is the recorder's preload script, relative to its folder.
const entry = "lib/register.js"

// Locate finds the recorder's folder: $LICORICE_NODE_RECORDER, else
// recorders/node in the directory of the licorice executable or of the
// working directory, or in one of their parents (a checkout). If the
// recorder's npm packages are not installed yet, it installs them from
// its lockfile (npm ci).
func Locate() (string, error) {
	if dir := os.Getenv(EnvRecorder); dir != "" {
		return checkRecorder(dir, EnvRecorder+"="+dir)
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			starts = append(starts, filepath.Dir(exe))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, s := range starts {
		for dir := s; ; dir = filepath.Dir(dir) {
			cand := filepath.Join(dir, "recorders", "node")
			if _, err := os.Stat(filepath.Join(cand, entry)); err == nil {
				return checkRecorder(cand, cand)
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", errors.New("cannot find the Node.js recorder (recorders/node of a licorice checkout): " +
		"run licorice from the checkout, or set " + EnvRecorder + " to that folder")
}

func checkRecorder(dir, what string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("node recorder %s: %w", what, err)
	}
	if _, err := os.Stat(filepath.Join(abs, entry)); err != nil {
		return "", fmt.Errorf("node recorder %s: no %s there", what, entry)
	}
	if err := InstallPackages(abs); err != nil {
		return "", fmt.Errorf("node recorder %s: %w", what, err)
	}
	return abs, nil
}

// InstallPackages installs a folder's npm packages from its lockfile (npm
// ci) unless they are installed already: node_modules/.package-lock.json,
// which npm writes, is there and not older than package-lock.json (give or
// take the two seconds npm may take between writing the two).
func InstallPackages(dir string) error {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("no package-lock.json in %s", dir)
	}
	if got, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && !got.ModTime().Add(2*time.Second).Before(lock.ModTime()) {
		return nil
	}
	if err := install(dir); err != nil {
		return fmt.Errorf("its npm packages are not installed, and `npm ci --prefix %s` failed: %w", dir, err)
	}
	return nil
}

// install runs npm ci in dir.
func install(dir string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "licorice: installing npm packages (npm ci --prefix %s)\n", dir)
	cmd := exec.Command(npm, "ci", "--prefix", dir, "--no-audit", "--no-fund")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
}

// IsESModule reports whether Node loads the program file as an ES module:
// a .mjs file, or a .js file whose nearest package.json says
// "type": "module".
func IsESModule(program string) bool {
	switch filepath.Ext(program) {
	case ".mjs":
		return true
	case ".cjs":
		return false
	}
	abs, err := filepath.Abs(program)
	if err != nil {
		return false
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var pkg struct {
				Type string `json:"type"`
			}
			return json.Unmarshal(data, &pkg) == nil && pkg.Type == "module"
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}
