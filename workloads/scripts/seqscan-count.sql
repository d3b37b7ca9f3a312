-- A full sequential scan of pgbench_accounts: read streams and prefetching (PostgreSQL 17+, asynchronous
-- I/O with io_method on 18) decide how fast it reads once the pages are not cached.
SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0;
