import { accessOf, type LevelFacts } from './levels';

const base: LevelFacts = { principalId: 'p_me', kind: 'human', membership: { role: 'member', confined: true }, ownsProject: false, createdBy: 'p_other', grant: null };
const facts = (over: Partial<LevelFacts>): LevelFacts => ({ ...base, ...over });

describe('accessOf (Authentication 5–6, Grant)', () => {
  test.each<[string, Partial<LevelFacts>, { level: string; via: string | null; visible: boolean }]>([
    ['an admin writes via admin', { membership: { role: 'admin', confined: true } }, { level: 'write', via: 'admin', visible: true }],
    ['an admin keeps write even with a none row', { membership: { role: 'admin', confined: true }, grant: { level: 'none' } }, { level: 'write', via: 'admin', visible: true }],
    ['a person who is a member reads via membership', {}, { level: 'read', via: 'membership', visible: true }],
    ['a revoked membership read is none, still visible', { grant: { level: 'none' } }, { level: 'none', via: 'grant', visible: true }],
    ['an explicit write grant beats membership read', { grant: { level: 'write' } }, { level: 'write', via: 'grant', visible: true }],
    ['an explicit read grant names the grant', { grant: { level: 'read' } }, { level: 'read', via: 'grant', visible: true }],
    ['the creator writes via creator', { createdBy: 'p_me' }, { level: 'write', via: 'creator', visible: true }],
    ['the creator keeps write after a none row', { createdBy: 'p_me', grant: { level: 'none' } }, { level: 'write', via: 'creator', visible: true }],
    ['a member token without a grant sees nothing', { kind: 'agent' }, { level: 'none', via: null, visible: false }],
    ['a member token with a read grant', { kind: 'mcp', grant: { level: 'read' } }, { level: 'read', via: 'grant', visible: true }],
    ['a legacy unconfined agent writes via agent', { kind: 'agent', membership: { role: 'member', confined: false } }, { level: 'write', via: 'agent', visible: true }],
    ['an admin token writes via admin', { kind: 'agent', membership: { role: 'admin', confined: true } }, { level: 'write', via: 'admin', visible: true }],
    ['outside the organisation nothing is visible', { membership: null }, { level: 'none', via: null, visible: false }],
    ['the owner of a project outside any organisation writes via creator', { membership: null, ownsProject: true }, { level: 'write', via: 'creator', visible: true }],
    ['a member token does not write what it created: it holds its grants only', { kind: 'agent', createdBy: 'p_me' }, { level: 'none', via: null, visible: false }],
    ['a member token that created a catalog holds its grant there', { kind: 'agent', createdBy: 'p_me', grant: { level: 'read' } }, { level: 'read', via: 'grant', visible: true }],
    ['an OAuth record that created a catalog holds nothing by it', { kind: 'mcp', createdBy: 'p_me' }, { level: 'none', via: null, visible: false }],
    ['a token owns no project outside an organisation', { kind: 'agent', membership: null, ownsProject: true }, { level: 'none', via: null, visible: false }],
  ])('%s', (_name, over, expected) => {
    expect(accessOf(facts(over))).toEqual(expected);
  });
});
