-- rocmProfileData schema v2: the tables and views the fixtures and planted traces use (read by make_sql_fixtures.py and tests/planted/make_planted.py)
CREATE TABLE rocpd_metadata (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, tag varchar(4096) NOT NULL, value varchar(4096) NOT NULL);
CREATE TABLE rocpd_string (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, string varchar(4096) NOT NULL);
CREATE TABLE rocpd_op (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, gpuId integer NOT NULL, queueId integer NOT NULL,
  sequenceId integer NOT NULL, completionSignal varchar(18) NOT NULL, start integer NOT NULL, end integer NOT NULL,
  description_id bigint NOT NULL, opType_id bigint NOT NULL);
CREATE TABLE rocpd_api (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, pid integer NOT NULL, tid integer NOT NULL,
  start integer NOT NULL, end integer NOT NULL, apiName_id bigint NOT NULL, args_id bigint NOT NULL);
CREATE TABLE rocpd_api_ops (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, api_id bigint NOT NULL, op_id bigint NOT NULL);
CREATE TABLE rocpd_kernelapi (api_ptr_id bigint NOT NULL PRIMARY KEY, stream varchar(18) NOT NULL, gridX integer NOT NULL,
  gridY integer NOT NULL, gridZ integer NOT NULL, workgroupX integer NOT NULL, workgroupY integer NOT NULL,
  workgroupZ integer NOT NULL, groupSegmentSize integer NOT NULL, privateSegmentSize integer NOT NULL,
  kernelArgAddress varchar(18) NOT NULL, aquireFence varchar(8) NOT NULL, releaseFence varchar(8) NOT NULL,
  codeObject_id bigint, kernelName_id bigint NOT NULL);
CREATE TABLE rocpd_copyapi (api_ptr_id bigint NOT NULL PRIMARY KEY, stream varchar(18) NOT NULL, size integer NOT NULL,
  width integer NOT NULL, height integer NOT NULL, kind integer NOT NULL, dst varchar(18) NOT NULL,
  src varchar(18) NOT NULL, dstDevice integer NOT NULL, srcDevice integer NOT NULL, sync bool NOT NULL, pinned bool NOT NULL);
CREATE TABLE rocpd_monitor (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, deviceType varchar(16) NOT NULL,
  deviceId integer NOT NULL, monitorType varchar(16) NOT NULL, start integer NOT NULL, end integer NOT NULL,
  value varchar(255) NOT NULL);
CREATE VIEW op AS SELECT rocpd_op.id,gpuId,queueId,sequenceId,start,end,A.string AS description, B.string AS opType FROM rocpd_op INNER JOIN rocpd_string A ON A.id = rocpd_op.description_id INNER JOIN rocpd_string B ON B.id = rocpd_op.opType_id;
create view top as select C.string as Name, count(C.string) as TotalCalls, sum(A.end-A.start) / 1000 as TotalDuration, (sum(A.end-A.start)/count(C.string))/ 1000 as Ave, sum(A.end-A.start) * 100.0 / (select sum(A.end-A.start) from rocpd_op A) as Percentage from (select opType_id as name_id, start, end from rocpd_op where description_id in (select id from rocpd_string where string='') union select description_id, start, end from rocpd_op where description_id not in (select id from rocpd_string where string='')) A join rocpd_string C on C.id = A.name_id group by Name order by TotalDuration desc;
