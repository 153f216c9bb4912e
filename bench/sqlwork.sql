-- sqlwork.sql: the benchmark's sqlite3 workload (part 7), for
--     sqlite3 :memory: '.read bench/sqlwork.sql'
-- Deterministic: generated rows (recursive CTEs), three indexes, joins,
-- GROUP BY, ORDER BY, a correlated subquery, an UPDATE and a DELETE, all in
-- memory: about 2.5 s of CPU on a 2-vCPU VM, no file I/O.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, region INTEGER);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer INTEGER, item TEXT, qty INTEGER, price REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO customer SELECT i, 'customer-' || (i * 2654435761 % 1000003), i % 37 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 450000)
INSERT INTO orders SELECT i, (i * 7919) % 20000 + 1, 'item-' || (i * 31 % 1000), i % 7 + 1,
       (i % 997) / 10.0 FROM n;
CREATE INDEX orders_customer ON orders(customer);
CREATE INDEX orders_item ON orders(item, qty);
CREATE INDEX customer_name ON customer(name);
SELECT c.region, count(*), sum(o.qty * o.price), avg(o.price)
  FROM orders o JOIN customer c ON c.id = o.customer GROUP BY c.region ORDER BY 3 DESC LIMIT 3;
SELECT o.item, count(DISTINCT o.customer), max(o.qty) FROM orders o
  WHERE o.qty > 3 GROUP BY o.item ORDER BY 2 DESC, 1 LIMIT 3;
SELECT count(*) FROM orders a JOIN orders b ON a.customer = b.customer AND a.id < b.id
  WHERE a.qty = 1 AND b.qty = 7;
UPDATE orders SET price = price * 1.1 WHERE item LIKE 'item-1%';
SELECT substr(c.name, 1, 12), t.total FROM customer c JOIN
  (SELECT customer, sum(qty * price) AS total FROM orders GROUP BY customer) t ON t.customer = c.id
  ORDER BY t.total DESC, 1 LIMIT 3;
SELECT region, length(group_concat(name, ',')) FROM
  (SELECT c.region, c.name FROM customer c ORDER BY c.name) GROUP BY region ORDER BY 2 DESC LIMIT 3;
SELECT count(*) FROM customer c WHERE (SELECT sum(qty) FROM orders o WHERE o.customer = c.id) > 80;
DELETE FROM orders WHERE qty = 2;
SELECT item, sum(qty) FROM orders GROUP BY item HAVING sum(qty) > 1000 ORDER BY 2 DESC, 1 LIMIT 3;
