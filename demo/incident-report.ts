// The long real text the demo agent summarises: a module rather than a file beside it, so that
// the demo seed, which runs inside the bundled server, has it without reading the disk.
export const INCIDENT_REPORT = `Incident report INC-4471: checkout latency on 2026-11-14, written for the demo agent (dedicated to the public domain by its author).
At 09:12 UTC the on-call engineer, Priya Raman, was paged because p99 checkout latency passed 2.4 seconds.
The alert came from the orders-api service in region eu-west-1, which normally answers in 180 milliseconds.
Traffic at the time was ordinary for a Friday morning, about 3,200 requests per second.
The first dashboard showed that the database connection pool of orders-api was saturated at 200 of 200 connections.
Connections were being held for 9 to 14 seconds instead of the usual 40 milliseconds.
Priya checked the deploy log and found that release v2.31.0 had gone out at 08:55 UTC.
The release changed the inventory lookup to read from the replica db-replica-3 instead of the primary.
The replica db-replica-3 was lagging 47 seconds behind the primary because of a long vacuum on the table stock_levels.
Each checkout waited on a row lock in stock_levels that the vacuum held in turn.
At 09:21 UTC Priya rolled back to release v2.30.4 with the command deploy rollback orders-api --to v2.30.4.
Latency fell to 210 milliseconds within four minutes of the rollback.
The pool recovered to 35 of 200 connections in use.
No orders were lost, but 1,184 checkouts failed with HTTP 503 between 09:05 and 09:25 UTC.
Those customers saw the message that the shop was busy and were asked to try again.
Support received 61 tickets about failed checkouts during the incident.
The vacuum on stock_levels finished at 09:48 UTC and the replica lag returned to under one second.
The root cause was that release v2.31.0 sent a latency-critical read to a replica without a lag check.
A contributing cause was that the vacuum schedule for stock_levels overlapped with the Friday morning peak.
A second contributing cause was that the connection pool had no timeout shorter than 30 seconds.
The team agreed on four actions during the review on 2026-11-17.
First, the inventory lookup will read from the primary unless replica lag is below 2 seconds, owned by Tomás Ferreira, due 2026-11-28.
Second, the vacuum on stock_levels will move to 03:00 UTC, owned by Mei Lin, due 2026-11-21.
Third, the pool timeout will drop from 30 seconds to 3 seconds, owned by Priya Raman, due 2026-11-24.
Fourth, a synthetic checkout probe will run every 30 seconds from three regions, owned by Jonas Berg, due 2026-12-05.
The review noted that the page reached Priya eight minutes after latency first rose.
The alert threshold of 2.4 seconds will be lowered to 1.2 seconds for p99 checkout latency.
The incident lasted 20 minutes from first failure to recovery.
The estimated revenue impact was 38,400 euros in delayed or abandoned orders.
The service level objective for checkout, 99.9 percent of requests under one second each month, was still met for November.
The incident was closed at 10:30 UTC on 2026-11-14 by Priya Raman.
The team thanked the support staff who answered the 61 tickets within the hour.
The review also found that the runbook for orders-api did not mention replica lag at all.
The runbook will gain a section on replica lag with the query that shows it, owned by Mei Lin.
The service and the team will review the action items again on 2026-12-08.
`;
