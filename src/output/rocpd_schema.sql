-- The rocpd tables output/rocpd_writer.cc fills, as rocprofv3 (schema 3) creates them: each
-- table's name carries the run's UUID ({uuid}, written _xxxxxxxx_xxxx_...) and a view without it
-- selects it whole; `guid` is the UUID with dashes ({guid}). rocprofv3's foreign keys are left
-- out (SQLite does not enforce them by default) and so are its summary views (kernels, top, ...).
CREATE TABLE `rocpd_metadata{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "tag" TEXT NOT NULL, "value" TEXT NOT NULL);
CREATE TABLE `rocpd_string{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "string" TEXT NOT NULL UNIQUE ON CONFLICT ABORT);
CREATE TABLE `rocpd_info_node{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "hash" BIGINT NOT NULL UNIQUE,
  "machine_id" TEXT NOT NULL UNIQUE, "system_name" TEXT, "hostname" TEXT, "release" TEXT,
  "version" TEXT, "hardware_name" TEXT, "domain_name" TEXT);
CREATE TABLE `rocpd_info_process{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "ppid" INTEGER,
  "pid" INTEGER NOT NULL, "init" BIGINT, "fini" BIGINT, "start" BIGINT, "end" BIGINT,
  "command" TEXT, "environment" JSONB DEFAULT "{}" NOT NULL, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_info_thread{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "ppid" INTEGER,
  "pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL, "name" TEXT, "start" BIGINT, "end" BIGINT,
  "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_info_agent{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "type" TEXT CHECK ("type" IN ('CPU', 'GPU')), "absolute_index" INTEGER,
  "logical_index" INTEGER, "type_index" INTEGER, "uuid" INTEGER, "name" TEXT, "model_name" TEXT,
  "vendor_name" TEXT, "product_name" TEXT, "user_name" TEXT,
  "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_info_queue{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "name" TEXT, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_info_stream{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "name" TEXT, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_info_code_object{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "agent_id" INTEGER, "uri" TEXT, "load_base" BIGINT, "load_size" BIGINT, "load_delta" BIGINT,
  "storage_type" TEXT CHECK ("storage_type" IN ('FILE', 'MEMORY')),
  "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_info_kernel_symbol{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "code_object_id" INTEGER NOT NULL, "kernel_name" TEXT, "display_name" TEXT,
  "kernel_object" INTEGER, "kernarg_segment_size" INTEGER, "kernarg_segment_alignment" INTEGER,
  "group_segment_size" INTEGER, "private_segment_size" INTEGER, "sgpr_count" INTEGER,
  "arch_vgpr_count" INTEGER, "accum_vgpr_count" INTEGER, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_track{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER, "tid" INTEGER,
  "name_id" INTEGER, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_event{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "category_id" INTEGER, "stack_id" INTEGER,
  "parent_stack_id" INTEGER, "correlation_id" INTEGER, "call_stack" JSONB DEFAULT "{}" NOT NULL,
  "line_info" JSONB DEFAULT "{}" NOT NULL, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_arg{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "event_id" INTEGER NOT NULL, "position" INTEGER NOT NULL,
  "type" TEXT NOT NULL, "name" TEXT NOT NULL, "value" TEXT, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_region{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "tid" INTEGER NOT NULL, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL,
  "name_id" INTEGER NOT NULL, "event_id" INTEGER, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_sample{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "track_id" INTEGER NOT NULL,
  "timestamp" BIGINT NOT NULL, "event_id" INTEGER, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_kernel_dispatch{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "tid" INTEGER, "agent_id" INTEGER NOT NULL, "kernel_id" INTEGER NOT NULL,
  "dispatch_id" INTEGER NOT NULL, "queue_id" INTEGER NOT NULL, "stream_id" INTEGER NOT NULL,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "private_segment_size" INTEGER,
  "group_segment_size" INTEGER, "workgroup_size_x" INTEGER NOT NULL,
  "workgroup_size_y" INTEGER NOT NULL, "workgroup_size_z" INTEGER NOT NULL,
  "grid_size_x" INTEGER NOT NULL, "grid_size_y" INTEGER NOT NULL, "grid_size_z" INTEGER NOT NULL,
  "region_name_id" INTEGER, "event_id" INTEGER, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_memory_copy{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "tid" INTEGER, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL,
  "dst_agent_id" INTEGER, "dst_address" INTEGER, "src_agent_id" INTEGER, "src_address" INTEGER,
  "size" INTEGER NOT NULL, "queue_id" INTEGER, "stream_id" INTEGER, "region_name_id" INTEGER,
  "event_id" INTEGER, "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE TABLE `rocpd_memory_allocate{uuid}` ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT "{guid}" NOT NULL, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "tid" INTEGER, "agent_id" INTEGER, "type" TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC',
  'RECLAIM')), "level" TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH')),
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "address" INTEGER, "size" INTEGER NOT NULL,
  "queue_id" INTEGER, "stream_id" INTEGER, "event_id" INTEGER,
  "extdata" JSONB DEFAULT "{}" NOT NULL);
CREATE VIEW `rocpd_metadata` AS SELECT * FROM `rocpd_metadata{uuid}`;
CREATE VIEW `rocpd_string` AS SELECT * FROM `rocpd_string{uuid}`;
CREATE VIEW `rocpd_info_node` AS SELECT * FROM `rocpd_info_node{uuid}`;
CREATE VIEW `rocpd_info_process` AS SELECT * FROM `rocpd_info_process{uuid}`;
CREATE VIEW `rocpd_info_thread` AS SELECT * FROM `rocpd_info_thread{uuid}`;
CREATE VIEW `rocpd_info_agent` AS SELECT * FROM `rocpd_info_agent{uuid}`;
CREATE VIEW `rocpd_info_queue` AS SELECT * FROM `rocpd_info_queue{uuid}`;
CREATE VIEW `rocpd_info_stream` AS SELECT * FROM `rocpd_info_stream{uuid}`;
CREATE VIEW `rocpd_info_code_object` AS SELECT * FROM `rocpd_info_code_object{uuid}`;
CREATE VIEW `rocpd_info_kernel_symbol` AS SELECT * FROM `rocpd_info_kernel_symbol{uuid}`;
CREATE VIEW `rocpd_track` AS SELECT * FROM `rocpd_track{uuid}`;
CREATE VIEW `rocpd_event` AS SELECT * FROM `rocpd_event{uuid}`;
CREATE VIEW `rocpd_arg` AS SELECT * FROM `rocpd_arg{uuid}`;
CREATE VIEW `rocpd_region` AS SELECT * FROM `rocpd_region{uuid}`;
CREATE VIEW `rocpd_sample` AS SELECT * FROM `rocpd_sample{uuid}`;
CREATE VIEW `rocpd_kernel_dispatch` AS SELECT * FROM `rocpd_kernel_dispatch{uuid}`;
CREATE VIEW `rocpd_memory_copy` AS SELECT * FROM `rocpd_memory_copy{uuid}`;
CREATE VIEW `rocpd_memory_allocate` AS SELECT * FROM `rocpd_memory_allocate{uuid}`;
