import { z } from 'zod';
import type { ToolContext } from './tool';
import { tool } from './tool';

// The registered tool's work takes the SDK's arguments untyped and hands its
// own work only what the tool's schema parses.

const context = {} as ToolContext;
const echo = tool({
  name: 'echo', level: 'read', title: 'Echo', description: 'Echoes its input.',
  input: { catalog: z.string().min(1), days: z.number().int().optional() },
  run: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
});

test('the work gets the arguments as the schema parses them: typed, unknown keys dropped', async () => {
  const r = await echo.run({ catalog: 'lake', days: 7, extra: true }, context);
  expect(r.content).toEqual([{ type: 'text', text: '{"catalog":"lake","days":7}' }]);
});

test('arguments the schema refuses never reach the work', async () => {
  for (const bad of [undefined, {}, { catalog: '' }, { catalog: 'lake', days: 1.5 }]) {
    await expect(echo.run(bad, context)).rejects.toThrow(z.ZodError);
  }
});
