// The cartridge suite: a console cartridge in the Kite VM, with frame stepping, the
// framebuffer and disassembly. CART is the cartridge directory.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Session } from './common.mjs';

const CART = process.env.CART;
assert.ok(CART, 'set CART to a cartridge directory');
const MAIN = path.join(CART, 'main.kite');

let s;
afterEach(async () => { await s.stop(); });

describe('cartridge', () => {
  test('frame stepping, framebuffer, disassemble, breakpoint in frame()', async () => {
    s = new Session();
    await s.start({ kind: 'cartridge', program: CART, stopOnEntry: true });
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDisassembleRequest, true);
    await s.stoppedAt('entry');
    await Promise.all([s.dc.customRequest('polydbg/stepFrame', {}), s.stoppedAt('frame')]);
    const fb = await s.dc.customRequest('polydbg/framebuffer', {});
    assert.equal(fb.body.width * fb.body.height, 128 * 128);
    const px = Buffer.from(fb.body.data, 'base64');
    assert.equal(px.length, 128 * 128);
    assert.ok(px.includes(8), 'the square (colour 8) is drawn');
    const r = await s.dc.setBreakpointsRequest({ source: { path: MAIN }, breakpoints: [{ line: 22 }] });
    assert.equal(r.body.breakpoints[0].verified, true);
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('breakpoint', 22)]);
    await s.outputHas('console', 'ColorSquare ready');
    const pc = (await s.top()).instructionPointerReference;
    const dis = await s.dc.disassembleRequest({ memoryReference: pc, instructionOffset: -2, instructionCount: 5 });
    assert.equal(dis.body.instructions.length, 5);
    assert.equal(dis.body.instructions[2].address, pc);
    assert.equal(dis.body.instructions[2].line, 22);
    const start = await s.dc.disassembleRequest({ memoryReference: '0x0', instructionOffset: -1, instructionCount: 2 });
    assert.equal(start.body.instructions[0].presentationHint, 'invalid', 'before the program: filler');
    await assert.rejects(s.dc.customRequest('readMemory', { memoryReference: '0', count: 1 }), /not supported/);
  });
});
