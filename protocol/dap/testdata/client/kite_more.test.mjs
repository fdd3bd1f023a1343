// More of the Kite suite: disassembly of a plain Kite file and goto targets, through
// VS Code's DebugClient against `polydbg dap`.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from './common.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polydbg-dap-more-'));
const PROG = path.join(dir, 'prog.kite');
fs.writeFileSync(PROG, `fn add(a, b) {
    let s = a + b
    s = s * 10
    return s
}
let total = 0
for i in range(0, 3) {
    total = add(total, i)
}
print("total \${total}")
`);

let s;
afterEach(async () => { await s.stop(); });

describe('kite, more', () => {
  test('disassemble a plain Kite file: bytecode with its source lines, filler outside', async () => {
    s = new Session();
    await s.start({ program: PROG }, () => s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 3 }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDisassembleRequest, true);
    await s.stoppedAt('breakpoint', 3);
    const pc = (await s.top()).instructionPointerReference;
    const dis = await s.dc.disassembleRequest({ memoryReference: pc, instructionOffset: -2, instructionCount: 5 });
    const ins = dis.body.instructions;
    assert.equal(ins.length, 5);
    assert.equal(ins[2].address, pc);
    assert.equal(ins[2].line, 3);
    assert.equal(ins[2].symbol, 'add');
    assert.equal(ins[2].location.path, PROG);
    assert.ok(ins.every((x) => x.instruction && x.instruction !== '??'), JSON.stringify(ins));
    assert.equal(BigInt(ins[3].address), BigInt(pc) + 1n, 'one address per instruction');
    const start = await s.dc.disassembleRequest({ memoryReference: '0x0', instructionOffset: -1, instructionCount: 2 });
    assert.equal(start.body.instructions[0].presentationHint, 'invalid', 'before the program: filler');
    assert.equal(start.body.instructions[1].address, '0x0');
    const end = await s.dc.disassembleRequest({ memoryReference: '0x100000', instructionCount: 2 });
    assert.deepEqual(end.body.instructions.map((x) => x.presentationHint), ['invalid', 'invalid'], 'after the program: filler');
  });

  test('goto: the frame moves back to a statement of its function, runs it again; loops and other functions are refused', async () => {
    s = new Session();
    await s.start({ program: PROG }, () => s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 4, condition: 'b == 1' }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsGotoTargetsRequest, true);
    await s.stoppedAt('breakpoint', 4);
    let top = await s.top();
    assert.equal((await s.vars(top.id, 'Locals')).s.value, '10');
    assert.deepEqual((await s.dc.customRequest('gotoTargets', { source: { path: PROG }, line: 8 })).body.targets, [],
      'line 8 is in another function');
    const t = (await s.dc.customRequest('gotoTargets', { source: { path: PROG }, line: 3 })).body.targets;
    assert.equal(t.length, 1);
    assert.equal(t[0].line, 3);
    const [, ev] = await Promise.all([s.dc.customRequest('goto', { threadId: 1, targetId: t[0].id }), s.stopped()]);
    assert.equal(ev.body.reason, 'goto');
    top = await s.top();
    assert.equal(top.line, 3);
    assert.equal((await s.vars(top.id, 'Locals')).s.value, '10', 'nothing ran');
    await Promise.all([s.dc.nextRequest({ threadId: 1 }), s.stoppedAt('breakpoint', 4)]); // its condition holds again
    assert.equal((await s.vars((await s.top()).id, 'Locals')).s.value, '100', 'line 3 ran again');
    await assert.rejects(s.dc.customRequest('goto', { threadId: 1, targetId: t[0].id }), /no target/, 'ids live for one stop');
    await s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 10 }] });
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('breakpoint', 10)]);
    const total = await s.dc.evaluateRequest({ expression: 'total', frameId: (await s.top()).id, context: 'watch' });
    assert.equal(total.body.result, '1020', 'add(0, 1) returned 100');
    assert.deepEqual((await s.dc.customRequest('gotoTargets', { source: { path: PROG }, line: 8 })).body.targets, [],
      'into a for loop from outside it: its iterator does not exist');
    const back = (await s.dc.customRequest('gotoTargets', { source: { path: PROG }, line: 6 })).body.targets;
    assert.equal(back.length, 1);
    await s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [] });
    await Promise.all([s.dc.customRequest('goto', { threadId: 1, targetId: back[0].id }), s.stoppedAt('goto', 6)]);
    await s.dc.continueRequest({ threadId: 1 });
    await s.outputHas('stdout', 'total 120\n'); // from line 6 again: the print at line 10 had not run
    assert.equal(s.output.stdout, 'total 120\n');
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('data breakpoints on Kite variables: a change stops after the write, a local ends with its call', async () => {
    s = new Session();
    await s.start({ program: PROG }, () => s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 3 }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDataBreakpoints, true);
    await s.stoppedAt('breakpoint', 3);
    const top = await s.top();
    const scopes = (await s.dc.scopesRequest({ frameId: top.id })).body.scopes;
    const ref = (name) => scopes.find((x) => x.name === name).variablesReference;
    const local = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: ref('Locals'), name: 's', frameId: top.id });
    const global = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: ref('Globals'), name: 'total', frameId: top.id });
    assert.ok(local.body.dataId && global.body.dataId, JSON.stringify([local.body, global.body]));
    assert.deepEqual(local.body.accessTypes, ['write', 'read', 'readWrite']);
    assert.equal(global.body.description, 'total');
    const set = await s.dc.customRequest('setDataBreakpoints', { breakpoints: [
      { dataId: local.body.dataId, accessType: 'write' }, { dataId: global.body.dataId }] });
    assert.deepEqual(set.body.breakpoints.map((b) => b.verified), [true, true], JSON.stringify(set.body));
    await s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [] });
    // add(0, 0): s = 0 * 10 writes the value s holds (no stop); its return ends the watch on s.
    await s.dc.continueRequest({ threadId: 1 });
    let ev = await s.stoppedAt('data breakpoint', 4);
    assert.deepEqual(ev.body.hitBreakpointIds, [set.body.breakpoints[0].id]);
    assert.match(ev.body.text, /^s: out of scope/);
    // total = add(0, 0) leaves total at 0; total = add(0, 1) makes it 10.
    await s.dc.continueRequest({ threadId: 1 });
    ev = await s.stoppedAt('data breakpoint', 7);
    assert.equal(ev.body.text, 'total: 0 -> 10');
    assert.deepEqual(ev.body.hitBreakpointIds, [set.body.breakpoints[1].id]);
    assert.equal((await s.vars((await s.top()).id, 'Locals')).i.value, '1', 'stopped right after the write');
    const again = await s.dc.customRequest('setDataBreakpoints', { breakpoints: [
      { dataId: local.body.dataId, accessType: 'write' }, { dataId: global.body.dataId }] });
    assert.equal(again.body.breakpoints[0].verified, false);
    assert.match(again.body.breakpoints[0].message, /out of scope/);
    assert.equal(again.body.breakpoints[1].id, set.body.breakpoints[1].id, 'an unchanged data breakpoint keeps its id');
    await s.dc.customRequest('setDataBreakpoints', { breakpoints: [] });
    await s.dc.continueRequest({ threadId: 1 });
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('what Kite does not have is not advertised, and answered plainly', async () => {
    s = new Session();
    await s.start({ program: PROG, stopOnEntry: true });
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsModulesRequest, undefined);
    await s.stoppedAt('entry');
    assert.deepEqual((await s.dc.customRequest('modules', {})).body.modules, []);
    await assert.rejects(s.dc.customRequest('goto', { threadId: 1, targetId: 99 }), /no target 99/);
    await assert.rejects(s.dc.customRequest('gotoTargets', { source: { path: '/elsewhere.kite' }, line: 1 }), /not part of the program/);
    assert.deepEqual((await s.dc.threadsRequest()).body.threads, [{ id: 1, name: 'main' }]);
  });
});
