// Metadata JSON samples in the shapes real writers produce, written from the spec.
// Snapshot ids are Java-style random 63-bit values, far above 2^53.

/** v1 as the Java writer emits it: the legacy schema/partition-spec next to the lists. */
export const V1_JAVA = `{
  "format-version" : 1,
  "table-uuid" : "0f7a7b2e-3c0d-4a0b-9c6e-2f6b1d1e2a11",
  "location" : "s3://bucket/warehouse/db/events_v1",
  "last-updated-ms" : 1717000002000,
  "last-column-id" : 3,
  "schema" : {
    "type" : "struct",
    "schema-id" : 0,
    "fields" : [
      { "id" : 1, "name" : "id", "required" : true, "type" : "long" },
      { "id" : 2, "name" : "ts", "required" : false, "type" : "timestamptz" },
      { "id" : 3, "name" : "payload", "required" : false, "type" : "string", "doc" : "raw event" }
    ]
  },
  "current-schema-id" : 0,
  "schemas" : [ {
    "type" : "struct",
    "schema-id" : 0,
    "fields" : [
      { "id" : 1, "name" : "id", "required" : true, "type" : "long" },
      { "id" : 2, "name" : "ts", "required" : false, "type" : "timestamptz" },
      { "id" : 3, "name" : "payload", "required" : false, "type" : "string", "doc" : "raw event" }
    ]
  } ],
  "partition-spec" : [ { "name" : "ts_day", "transform" : "day", "source-id" : 2, "field-id" : 1000 } ],
  "default-spec-id" : 0,
  "partition-specs" : [ { "spec-id" : 0, "fields" : [ { "name" : "ts_day", "transform" : "day", "source-id" : 2, "field-id" : 1000 } ] } ],
  "last-partition-id" : 1000,
  "default-sort-order-id" : 0,
  "sort-orders" : [ { "order-id" : 0, "fields" : [ ] } ],
  "properties" : { "owner" : "root", "write.format.default" : "parquet" },
  "current-snapshot-id" : 7723847581212738001,
  "refs" : { "main" : { "snapshot-id" : 7723847581212738001, "type" : "branch" } },
  "snapshots" : [ {
    "snapshot-id" : 7723847581212738001,
    "timestamp-ms" : 1717000001000,
    "summary" : { "operation" : "append", "added-data-files" : "1", "added-records" : "10" },
    "manifest-list" : "s3://bucket/warehouse/db/events_v1/metadata/snap-7723847581212738001-1-a.avro",
    "schema-id" : 0
  } ],
  "statistics" : [ ],
  "partition-statistics" : [ ],
  "snapshot-log" : [ { "timestamp-ms" : 1717000001000, "snapshot-id" : 7723847581212738001 } ],
  "metadata-log" : [ { "timestamp-ms" : 1717000000000, "metadata-file" : "s3://bucket/warehouse/db/events_v1/metadata/00000-0a3e1c4e-7a3c-4e0a-8d3f-0f1b2c3d4e5f.metadata.json" } ]
}`;

/** v1 from a very old writer: only the legacy fields, no uuid, no refs, no sort orders. */
export const V1_LEGACY = `{
  "format-version": 1,
  "location": "hdfs://nn/warehouse/old",
  "last-updated-ms": 1500000000000,
  "last-column-id": 2,
  "schema": { "type": "struct", "fields": [
    { "id": 1, "name": "a", "required": true, "type": "int" },
    { "id": 2, "name": "b", "required": false, "type": "string" } ] },
  "partition-spec": [ { "name": "a", "transform": "identity", "source-id": 1 } ],
  "properties": {},
  "current-snapshot-id": -1,
  "snapshots": []
}`;

/** v2 as Java writes it, with statistics, a tag and a branch, and unknown keys. */
export const V2_JAVA = `{
  "format-version" : 2,
  "table-uuid" : "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location" : "s3://bucket/warehouse/db/orders",
  "last-sequence-number" : 3,
  "last-updated-ms" : 1717100003000,
  "last-column-id" : 7,
  "current-schema-id" : 1,
  "schemas" : [ {
    "type" : "struct",
    "schema-id" : 0,
    "fields" : [ { "id" : 1, "name" : "order_id", "required" : true, "type" : "long" },
                 { "id" : 2, "name" : "amount", "required" : false, "type" : "decimal(10, 2)" } ]
  }, {
    "type" : "struct",
    "schema-id" : 1,
    "identifier-field-ids" : [ 1 ],
    "fields" : [ { "id" : 1, "name" : "order_id", "required" : true, "type" : "long" },
                 { "id" : 2, "name" : "amount", "required" : false, "type" : "decimal(10, 2)" },
                 { "id" : 3, "name" : "tags", "required" : false, "type" : { "type" : "list", "element-id" : 4, "element" : "string", "element-required" : true } },
                 { "id" : 5, "name" : "attrs", "required" : false, "type" : { "type" : "map", "key-id" : 6, "key" : "string", "value-id" : 7, "value" : "fixed[16]", "value-required" : false } } ]
  } ],
  "default-spec-id" : 0,
  "partition-specs" : [ { "spec-id" : 0, "fields" : [ { "name" : "order_id_bucket", "transform" : "bucket[16]", "source-id" : 1, "field-id" : 1000 } ] } ],
  "last-partition-id" : 1000,
  "default-sort-order-id" : 1,
  "sort-orders" : [ { "order-id" : 0, "fields" : [ ] },
                    { "order-id" : 1, "fields" : [ { "transform" : "identity", "source-id" : 1, "direction" : "asc", "null-order" : "nulls-first" } ] } ],
  "properties" : { "write.metadata.previous-versions-max" : "2", "commit.retry.num-retries" : "4" },
  "current-snapshot-id" : 9223372036854775807,
  "refs" : {
    "main" : { "snapshot-id" : 9223372036854775807, "type" : "branch" },
    "audit" : { "snapshot-id" : 4611686018427387905, "type" : "branch", "min-snapshots-to-keep" : 2, "max-snapshot-age-ms" : 86400000 },
    "v1.0" : { "snapshot-id" : 4611686018427387905, "type" : "tag", "max-ref-age-ms" : 604800000 }
  },
  "snapshots" : [ {
    "sequence-number" : 1,
    "snapshot-id" : 4611686018427387905,
    "timestamp-ms" : 1717100001000,
    "summary" : { "operation" : "append", "spark.app.id" : "local-1" },
    "manifest-list" : "s3://bucket/warehouse/db/orders/metadata/snap-4611686018427387905.avro",
    "schema-id" : 0
  }, {
    "sequence-number" : 3,
    "snapshot-id" : 9223372036854775807,
    "parent-snapshot-id" : 4611686018427387905,
    "timestamp-ms" : 1717100002000,
    "summary" : { "operation" : "overwrite" },
    "manifest-list" : "s3://bucket/warehouse/db/orders/metadata/snap-9223372036854775807.avro",
    "schema-id" : 1
  } ],
  "statistics" : [ {
    "snapshot-id" : 9223372036854775807,
    "statistics-path" : "s3://bucket/warehouse/db/orders/metadata/stats.puffin",
    "file-size-in-bytes" : 4133,
    "file-footer-size-in-bytes" : 2711,
    "blob-metadata" : [ { "type" : "apache-datasketches-theta-v1", "snapshot-id" : 9223372036854775807, "sequence-number" : 3, "fields" : [ 1 ], "properties" : { "ndv" : "12" } } ]
  } ],
  "partition-statistics" : [ { "snapshot-id" : 9223372036854775807, "statistics-path" : "s3://bucket/warehouse/db/orders/metadata/pstats.parquet", "file-size-in-bytes" : 991 } ],
  "snapshot-log" : [ { "timestamp-ms" : 1717100001000, "snapshot-id" : 4611686018427387905 },
                     { "timestamp-ms" : 1717100002000, "snapshot-id" : 9223372036854775807 } ],
  "metadata-log" : [ { "timestamp-ms" : 1717100000000, "metadata-file" : "s3://bucket/warehouse/db/orders/metadata/00000-a.metadata.json" },
                     { "timestamp-ms" : 1717100001000, "metadata-file" : "s3://bucket/warehouse/db/orders/metadata/00001-b.metadata.json" } ],
  "x-writer-extension" : { "big" : 12345678901234567890, "ratio" : 0.25, "list" : [ 1, -9007199254740993 ] }
}`;

/** v3 with row lineage, v3 types, defaults, an encryption key, and PyIceberg-style nulls. */
export const V3_SAMPLE = `{
  "format-version": 3,
  "table-uuid": "5b2a8a57-3a6b-4c5e-8d55-3e1f0c7c9a00",
  "location": "s3://bucket/warehouse/db/telemetry",
  "last-sequence-number": 2,
  "last-updated-ms": 1717200002000,
  "last-column-id": 9,
  "schemas": [ {
    "type": "struct",
    "schema-id": 0,
    "fields": [
      { "id": 1, "name": "device", "required": true, "type": "string" },
      { "id": 2, "name": "at", "required": true, "type": "timestamptz_ns" },
      { "id": 3, "name": "local_at", "required": false, "type": "timestamp_ns" },
      { "id": 4, "name": "doc", "required": false, "type": "variant" },
      { "id": 5, "name": "where", "required": false, "type": "geometry(srid:4326)" },
      { "id": 6, "name": "area", "required": false, "type": "geography(OGC:CRS84, karney)" },
      { "id": 7, "name": "later", "required": false, "type": "unknown" },
      { "id": 8, "name": "count", "required": false, "type": "long", "initial-default": 9007199254740993, "write-default": 0 },
      { "id": 9, "name": "pt", "required": false, "type": { "type": "struct", "fields": [] }, "initial-default": {}, "write-default": {} }
    ]
  } ],
  "current-schema-id": 0,
  "partition-specs": [ { "spec-id": 0, "fields": [ { "name": "at_hour", "transform": "hour", "source-id": 2, "field-id": 1000 },
                                                    { "name": "zz", "transform": "some_future_transform", "source-ids": [1, 2], "field-id": 1001 } ] } ],
  "default-spec-id": 0,
  "last-partition-id": 1001,
  "sort-orders": [ { "order-id": 0, "fields": [] } ],
  "default-sort-order-id": 0,
  "properties": {},
  "current-snapshot-id": 8070450532247928833,
  "next-row-id": 150,
  "encryption-keys": [ { "key-id": "k1", "encrypted-key-metadata": "aWNlYmVyZwo=", "encrypted-by-id": null } ],
  "refs": { "main": { "snapshot-id": 8070450532247928833, "type": "branch", "min-snapshots-to-keep": null, "max-snapshot-age-ms": null, "max-ref-age-ms": null } },
  "snapshots": [ {
    "snapshot-id": 8070450532247928832,
    "parent-snapshot-id": null,
    "sequence-number": 1,
    "timestamp-ms": 1717200001000,
    "manifest-list": "s3://bucket/warehouse/db/telemetry/metadata/snap-1.avro",
    "summary": { "operation": "append" },
    "schema-id": 0,
    "first-row-id": 0,
    "added-rows": 100
  }, {
    "snapshot-id": 8070450532247928833,
    "parent-snapshot-id": 8070450532247928832,
    "sequence-number": 2,
    "timestamp-ms": 1717200002000,
    "manifest-list": "s3://bucket/warehouse/db/telemetry/metadata/snap-2.avro",
    "summary": { "operation": "append" },
    "schema-id": 0,
    "first-row-id": 100,
    "added-rows": 50,
    "key-id": "k1"
  } ],
  "snapshot-log": [ { "timestamp-ms": 1717200001000, "snapshot-id": 8070450532247928832 },
                    { "timestamp-ms": 1717200002000, "snapshot-id": 8070450532247928833 } ],
  "metadata-log": [],
  "statistics": [],
  "partition-statistics": []
}`;

/** v2 freshly created with no snapshot yet, as iceberg-js / PyIceberg load it from a catalog. */
export const V2_EMPTY = `{"format-version":2,"table-uuid":"6f9b4f4e-8a3c-4b7d-9c51-1a2b3c4d5e6f","location":"s3://bucket/wh/ns/t","last-sequence-number":0,"last-updated-ms":1717300000000,"last-column-id":2,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamp"}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},"current-snapshot-id":-1,"refs":{},"snapshots":[],"statistics":[],"partition-statistics":[],"snapshot-log":[],"metadata-log":[]}`;
