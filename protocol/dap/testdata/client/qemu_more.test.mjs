// More of the firmware suite: the Peripherals scope of an SVD file and data breakpoints
// (QEMU's watchpoints), through VS Code's DebugClient. FW_ELF is the firmware, FW_SRC its
// source, SVD the device description.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Session, line } from './common.mjs';

const ELF = process.env.FW_ELF, SRC = process.env.FW_SRC, SVD = process.env.SVD;
assert.ok(ELF && SRC && SVD, 'set FW_ELF, FW_SRC and SVD');
const BUSY = line(SRC, 'busy_add');

let s;
afterEach(async () => { await s.stop(); });

async function named(ref) {
  const v = await s.dc.variablesRequest({ variablesReference: ref });
  return Object.fromEntries(v.body.variables.map((x) => [x.name, x]));
}

describe('QEMU firmware, more', () => {
  test('Peripherals scope with decoded fields, and a data breakpoint on a global', async () => {
    s = new Session();
    await s.start({ kind: 'qemu', machine: 'lm3s6965evb', elf: ELF, svd: SVD },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: BUSY }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDataBreakpoints, true);
    await s.stoppedAt('breakpoint', BUSY);
    const top = await s.top();
    const scopes = (await s.dc.scopesRequest({ frameId: top.id })).body.scopes;
    const periph = scopes.find((x) => x.name === 'Peripherals');
    assert.ok(periph, scopes.map((x) => x.name).join());
    const ps = await named(periph.variablesReference);
    assert.ok(ps.UART0 && ps.SYSCTL, Object.keys(ps).join());
    const sysctl = await named(ps.SYSCTL.variablesReference);
    const did0 = sysctl['ID.DID0'];
    assert.ok(did0, Object.keys(sysctl).join());
    assert.equal(did0.value, '0x10010002', 'QEMU reports class Fury, revision A2');
    const fields = await named(did0.variablesReference);
    assert.match(fields.CLASS.value, /FURY/);
    assert.equal(fields.MINOR.value, '2');
    assert.equal(fields.VER.value, '1');

    const globals = scopes.find((x) => x.name === 'Globals');
    const before = (await s.dc.evaluateRequest({ expression: 'loops', frameId: top.id, context: 'watch' })).body.result;
    const info = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: globals.variablesReference, name: 'loops', frameId: top.id });
    assert.ok(info.body.dataId, JSON.stringify(info.body));
    const set = await s.dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
    assert.equal(set.body.breakpoints[0].verified, true, JSON.stringify(set.body));
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [] });
    const [, ev] = await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stopped()]);
    assert.equal(ev.body.reason, 'data breakpoint', JSON.stringify(ev.body));
    assert.deepEqual(ev.body.hitBreakpointIds, [set.body.breakpoints[0].id]);
    assert.equal(ev.body.text, `loops: ${before} -> ${Number(before) + 1}`);
    await s.dc.customRequest('setDataBreakpoints', { breakpoints: [] });
    await Promise.all([s.dc.terminateRequest({}), s.terminated()]);
  });
});
