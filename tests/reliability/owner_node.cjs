// The real framework's writeState, driven by tests/reliability/owner.py (not a test).
//
//   CLAUDE_PROJECT_DIR=<root> node owner_node.cjs <path to src/claude/hooks/lib/common.cjs>
//
// Reads one JSON line per write from stdin, {"how": "sync" | "async", "state": {...}}, and
// hands the state to the framework's own code: "sync" is writeState(state) (reads the version
// on disk, stores disk + 1, fs.writeFileSync of JSON.stringify(state, null, 2): truncate, then
// write); "async" is writeState(root, state) (a temp file renamed into place, the version as
// given). Answers "ok" (or "failed") on stdout after each write.
"use strict";
const readline = require("readline");
const common = require(process.argv[2]);
const root = process.env.CLAUDE_PROJECT_DIR;

const lines = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  queue = queue.then(async () => {
    const { how, state } = JSON.parse(line);
    let ok = true;
    try {
      if (how === "async") await common.writeState(root, state);
      else ok = common.writeState(state) === true;
    } catch (e) {
      ok = false;
    }
    process.stdout.write(ok ? "ok\n" : "failed\n");
  });
});
