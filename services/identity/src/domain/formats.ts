// GET /v1/config/formats: the single list of which Iceberg format versions a
// table can have and who writes and reads each (spec: Versioning 3). Engine
// strings are machine-parseable `<engine>[>=<version>[+<lib>-<version>]]`.

export const DEFAULT_FORMAT_VERSION = 2;
export const SUPPORTED_FORMAT_VERSIONS = [2, 3] as const;

export interface FormatVersionRow {
  format_version: number;
  default: boolean;
  writers: string[];
  readers: string[];
  note: string;
}

export const FORMAT_VERSIONS: FormatVersionRow[] = [
  {
    format_version: 2,
    default: true,
    writers: ['spark>=3.3+iceberg-1.4.0', 'pyiceberg>=0.6.0', 'duckdb>=1.4.0', 'trino>=438', 'iceberg-js>=1.0.0'],
    readers: ['icebird>=0.3.0', 'snowflake'],
    note: 'Row-level deletes (position and equality) and every engine above; the default for tables Floe creates.',
  },
  {
    format_version: 3,
    default: false,
    writers: ['spark>=3.5+iceberg-1.10.0'],
    readers: ['pyiceberg>=0.10.0', 'trino>=477'],
    note: 'Adds deletion vectors, row lineage, default values and geometry/geography types. Engines not listed cannot open v3 tables. Version 3 tables are not compacted yet; snapshot expiry and orphan cleanup do run.',
  },
];

export function formatsDocument() {
  return {
    default_format_version: DEFAULT_FORMAT_VERSION,
    versions: FORMAT_VERSIONS,
    grammar: '<engine>[>=<version>[+<lib>-<version>]]',
    note: 'default_format_version applies to the service\'s own create paths; an engine\'s own CREATE TABLE is honoured as sent.',
  };
}
