// Shared by the suites: a DebugClient whose events are recorded from the start, so none is
// lost to a late listener (DebugClient's waitForEvent only sees events after it is called).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { DebugClient } from '@vscode/debugadapter-testsupport';

export const POLYDBG = process.env.POLYDBG;
assert.ok(POLYDBG, 'set POLYDBG to the polydbg binary');

export function record(client, type) {
  const queue = [], waiters = [];
  client.on(type, (e) => { const w = waiters.shift(); if (w) w(e); else queue.push(e); });
  return (timeout = 20000) => queue.length ? Promise.resolve(queue.shift()) : new Promise((resolve, reject) => {
    // the timer goes with the wait: one left behind would hold the suite's end for its time
    const w = (e) => { clearTimeout(timer); resolve(e); };
    const timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(w), 1); // a later event is queued, not given to a wait given up
      reject(new Error(`no ${type} event after ${timeout} ms`));
    }, timeout);
    waiters.push(w);
  });
}

// Session wraps one DebugClient started on `polydbg dap` over stdio.
export class Session {
  constructor() {
    this.dc = new DebugClient(POLYDBG, 'dap', 'polydbg');
    this.dc.defaultTimeout = 20000;
    this.stopped = record(this.dc, 'stopped');
    this.exited = record(this.dc, 'exited');
    this.terminated = record(this.dc, 'terminated');
    this.events = [];
    this.output = { stdout: '', stderr: '', console: '' };
    for (const e of ['progressStart', 'progressEnd', 'capabilities', 'initialized', 'thread']) {
      this.dc.on(e, (ev) => this.events.push(ev));
    }
    this.dc.on('output', (e) => { this.output[e.body.category] += e.body.output; });
  }
  async start(args, setup = async () => {}) {
    await this.dc.start();
    await Promise.all([
      this.dc.waitForEvent('initialized').then(setup).then(() => this.dc.configurationDoneRequest()),
      this.dc.launch(args),
    ]);
  }
  async attach(args, setup = async () => {}) {
    await this.dc.start();
    await this.dc.initializeRequest({ adapterID: 'polydbg' });
    await Promise.all([
      this.dc.waitForEvent('initialized').then(setup).then(() => this.dc.configurationDoneRequest()),
      this.dc.attachRequest(args),
    ]);
  }
  async top() { return (await this.dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0]; }
  async stoppedAt(reason, line) {
    const ev = await this.stopped();
    assert.equal(ev.body.reason, reason, JSON.stringify(ev.body));
    if (line !== undefined) assert.equal((await this.top()).line, line);
    return ev;
  }
  async vars(frameId, scopeName) {
    const sc = (await this.dc.scopesRequest({ frameId })).body.scopes;
    const s = sc.find((x) => x.name === scopeName);
    assert.ok(s, `scope ${scopeName} in ${sc.map((x) => x.name)}`);
    const v = await this.dc.variablesRequest({ variablesReference: s.variablesReference });
    return Object.fromEntries(v.body.variables.map((x) => [x.name, x]));
  }
  async outputHas(category, text, timeout = 20000) {
    const end = Date.now() + timeout;
    while (!this.output[category].includes(text)) {
      if (Date.now() > end) assert.fail(`no ${category} output ${JSON.stringify(text)}: got ${JSON.stringify(this.output[category])}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  stop() {
    const p = this.dc._adapterProcess;
    if (p && (p.exitCode !== null || p.signalCode !== null)) return Promise.resolve(); // already gone
    return this.dc.stop();
  }
}

// line finds the line of a "LINE:name" marker in a source file.
export function line(file, name) {
  const i = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(`LINE:${name}`));
  assert.ok(i >= 0, `marker ${name} in ${file}`);
  return i + 1;
}

// gone waits until no process has pid.
export async function gone(pid, timeout = 5000) {
  const end = Date.now() + timeout;
  for (;;) {
    try { process.kill(pid, 0); } catch { return true; }
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
