-- The reference notes' DDL (iibench purchases tables, the UUID events_* tables, utf8/latin1
-- charsets, zero-default timestamps) with a few rows; loaded into MariaDB by test_dump.py.
SET sql_mode = 'NO_ENGINE_SUBSTITUTION';
CREATE DATABASE refdb DEFAULT CHARACTER SET latin1;
USE refdb;
CREATE TABLE `purchases_noindex` (
  `transactionid` int(11) NOT NULL AUTO_INCREMENT,
  `dateandtime` datetime DEFAULT NULL,
  `cashregisterid` int(11) NOT NULL,
  `customerid` int(11) NOT NULL,
  `productid` int(11) NOT NULL,
  `price` float NOT NULL,
  PRIMARY KEY (`transactionid`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
/*!50100 PARTITION BY RANGE (transactionid)
(PARTITION p0 VALUES LESS THAN (100000000) ENGINE = InnoDB,
 PARTITION p1 VALUES LESS THAN (200000000) ENGINE = InnoDB,
 PARTITION p2 VALUES LESS THAN (300000000) ENGINE = InnoDB,
 PARTITION p10 VALUES LESS THAN MAXVALUE ENGINE = InnoDB) */;
CREATE TABLE `purchases_index` (
  `transactionid` int(11) NOT NULL AUTO_INCREMENT,
  `dateandtime` datetime DEFAULT NULL,
  `cashregisterid` int(11) NOT NULL,
  `customerid` int(11) NOT NULL,
  `productid` int(11) NOT NULL,
  `price` float NOT NULL,
  PRIMARY KEY (`transactionid`),
  KEY `marketsegment` (`price`,`customerid`),
  KEY `registersegment` (`cashregisterid`,`price`,`customerid`),
  KEY `pdc` (`price`,`dateandtime`,`customerid`)
) ENGINE=InnoDB AUTO_INCREMENT=11073789 DEFAULT CHARSET=latin1
/*!50100 PARTITION BY RANGE (transactionid)
(PARTITION p0 VALUES LESS THAN (100000000) ENGINE = InnoDB,
 PARTITION p1 VALUES LESS THAN MAXVALUE ENGINE = InnoDB) */;
CREATE TABLE `events_uuid` (
  `uuid` char(36) NOT NULL,
  `is_active` tinyint(1) NOT NULL DEFAULT '1',
  `gender` char(1) DEFAULT NULL,
  `campaign_id` binary(16) DEFAULT NULL,
  `amount` decimal(15,7) DEFAULT '0.0000000',
  `score` smallint(6) DEFAULT NULL,
  `title` varchar(255) COLLATE utf8_unicode_ci DEFAULT NULL,
  `body` text COLLATE utf8_unicode_ci,
  `created_at` timestamp NOT NULL DEFAULT '0000-00-00 00:00:00',
  `day` date DEFAULT NULL,
  PRIMARY KEY (`uuid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8 COLLATE=utf8_unicode_ci;
CREATE TABLE `events_uuid_ordered` (
  `uuid` binary(16) NOT NULL,
  `is_active` tinyint(1) NOT NULL DEFAULT '1',
  `gender` char(1) DEFAULT NULL,
  `amount` decimal(15,7) DEFAULT '0.0000000',
  `title` varchar(255) COLLATE utf8_unicode_ci DEFAULT NULL,
  `created_at` timestamp NOT NULL DEFAULT '0000-00-00 00:00:00',
  PRIMARY KEY (`uuid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8 COLLATE=utf8_unicode_ci;
CREATE TABLE `events_int` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `is_active` tinyint(1) NOT NULL DEFAULT '1',
  `gender` char(1) DEFAULT NULL,
  `amount` decimal(15,7) DEFAULT '0.0000000',
  `title` varchar(255) COLLATE utf8_unicode_ci DEFAULT NULL,
  `created_at` timestamp NOT NULL DEFAULT '0000-00-00 00:00:00',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8 COLLATE=utf8_unicode_ci;
INSERT INTO purchases_noindex (dateandtime, cashregisterid, customerid, productid, price) VALUES
 ('2024-01-01 10:00:00', 1, 100, 1000, 9.5), (NULL, 2, 200, 2000, 0.25), ('2024-02-29 23:59:59', 3, 300, 3000, 123.125);
INSERT INTO purchases_index SELECT * FROM purchases_noindex;
INSERT INTO purchases_index (dateandtime, cashregisterid, customerid, productid, price) VALUES ('2025-06-30 12:34:56', 9, 9, 9, 1.5);
INSERT INTO events_uuid VALUES ('58e0a7d7-eebc-11d8-9669-0800200c9a66', 1, 'M', UNHEX('11d8eebc58e0a7d796690800200c9a66'), 12.3456789, -5, 'Ünïcödé title', 'long body with ''quotes'' and \\ backslash and\nnewline', '2020-05-01 12:00:00', '2020-05-01'),
 ('68e0a7d7-eebc-11d8-9669-0800200c9a66', 0, NULL, NULL, NULL, NULL, NULL, NULL, '0000-00-00 00:00:00', NULL);
INSERT INTO events_uuid_ordered VALUES (UNHEX('11d8eebc58e0a7d796690800200c9a66'), 1, 'F', 0.0000001, 'x', '2021-01-01 00:00:00'), (UNHEX('00ff00ff00ff00ff00ff00ff00ff00ff'), 0, NULL, DEFAULT, NULL, DEFAULT);
INSERT INTO events_int (is_active, gender, amount, title, created_at) VALUES (1, 'M', 1.5, 'a', '2022-02-02 02:02:02'), (0, 'F', DEFAULT, NULL, DEFAULT);
