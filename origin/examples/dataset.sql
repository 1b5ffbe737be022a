-- The bundled example dataset: a small, made-up film-rental shop.
--
-- Deterministic by construction: no random(), no now(), no network, no
-- extension beyond those built into the DuckDB library. Zoned values are
-- written with explicit offsets or built from epoch seconds, so the session
-- time zone of the process that builds the file changes nothing.
--
-- It also carries the values clients get wrong: BIGINTs past 2^53, exact
-- decimals, dates before 1970, timestamps with and without a zone, NULLs next
-- to empty strings, quotes, commas, tabs, newlines, accents, CJK, RTL and emoji.
--
-- build-dataset.ts runs this file in one transaction: no BEGIN/COMMIT here.

CREATE TABLE genres (
  id          INTEGER PRIMARY KEY,
  name        VARCHAR NOT NULL UNIQUE,
  description VARCHAR
);

CREATE TABLE directors (
  id         INTEGER PRIMARY KEY,
  name       VARCHAR NOT NULL,
  country    VARCHAR,
  birth_date DATE,
  bio        TEXT
);

CREATE TABLE films (
  id             INTEGER PRIMARY KEY,
  title          VARCHAR NOT NULL,
  director_id    INTEGER REFERENCES directors (id),
  release_date   DATE,
  rating         VARCHAR CHECK (rating IN ('G', 'PG', 'PG-13', 'R', 'NC-17')),
  length_minutes INTEGER,
  price          DECIMAL(6, 2) NOT NULL,
  views          BIGINT,
  description    TEXT
);

CREATE TABLE film_genres (
  film_id  INTEGER NOT NULL REFERENCES films (id),
  genre_id INTEGER NOT NULL REFERENCES genres (id),
  PRIMARY KEY (film_id, genre_id)
);

CREATE TABLE customers (
  id           INTEGER PRIMARY KEY,
  first_name   VARCHAR NOT NULL,
  last_name    VARCHAR NOT NULL,
  email        VARCHAR,
  country      VARCHAR,
  birth_date   DATE,
  signed_up_at TIMESTAMPTZ NOT NULL,
  active       BOOLEAN NOT NULL
);

CREATE TABLE rentals (
  id          INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers (id),
  film_id     INTEGER NOT NULL REFERENCES films (id),
  rented_at   TIMESTAMP NOT NULL,
  due_date    DATE NOT NULL,
  returned_at TIMESTAMPTZ,
  amount      DECIMAL(6, 2) NOT NULL,
  late_fee    DECIMAL(6, 2)
);

INSERT INTO genres VALUES
  (1, 'Drama', 'Serious stories about people.'),
  (2, 'Comedy', 'Meant to make you laugh; results vary.'),
  (3, 'Horror', 'Best watched with the lights on.'),
  (4, 'Romance', 'Love, loss, and airport chases.'),
  (5, 'Thriller', 'Suspense, twists, "unexpected" endings.'),
  (6, 'Documentary', 'Real people, real places.'),
  (7, 'Science Fiction', 'Spaceships, time travel, robots.'),
  (8, 'Animation', 'Drawn, modelled or stop-motion.'),
  (9, 'Western', NULL);  -- no film has this genre: the empty side of a LEFT JOIN

INSERT INTO directors VALUES
  (1, 'Amélie Dubois', 'France', DATE '1971-04-12', 'Paris-born; shot commercials for ten years before her first feature.'),
  (2, 'Søren Kjærgaard', 'Denmark', DATE '1958-11-02', 'Known for long takes, longer silences.'),
  (3, '山田 花子', 'Japan', DATE '1980-01-30', 'Yamada Hanako. 東京生まれ、夜の街を撮り続ける。'),
  (4, '김민준', 'South Korea', DATE '1985-06-15', 'Kim Min-jun: genre films with a social conscience.'),
  (5, 'José Núñez', 'Spain', DATE '1949-09-09', 'Made crime films "the old way", on 35 mm.'),
  (6, 'Zoë O''Connor', 'Ireland', DATE '1990-03-17', 'Started on YouTube; now makes romantic comedies, mostly.'),
  (7, 'Björn Åström', 'Sweden', DATE '1966-12-24', 'Weather, landscapes, and the people stuck in them.'),
  (8, 'Priya Raghunathan', 'India', DATE '1977-08-15', 'Ensemble comedies, big families, bigger weddings.'),
  (9, 'Chidi Okafor', 'Nigeria', DATE '1983-10-01', 'Nollywood veteran who also writes his own scores.'),
  (10, 'Marta Wiśniewska', 'Poland', DATE '1962-05-05', 'Letters, archives, and the year 1989.'),
  (11, 'Ana Luísa Gonçalves', 'Brazil', DATE '1995-02-28', NULL),
  (12, 'Anonymous', NULL, NULL, NULL);  -- unknown director: NULLs all along

INSERT INTO films VALUES
  (1, 'The Quiet Harbour', 2, DATE '1998-03-20', 'PG', 104, 3.99, 1204331,
      'A lighthouse keeper and a very persistent seagull.'),
  (2, 'Café de l''Été', 1, DATE '2003-07-14', 'PG-13', 97, 3.99, 845210,
      'Un café au lait, s''il vous plaît — one summer in a café in Provence.'),
  (3, '東京の夜', 3, DATE '2012-11-03', 'R', 121, 4.99, 2310554,
      '東京の夜は静かだ。A night-shift taxi driver and her regular passengers.'),
  (4, 'Don''t Look Back, Darling', 6, DATE '2019-02-14', 'PG-13', 88, 4.99, 5093311,
      'It''s a love story, isn''t it? Mostly.'),
  (5, 'The "Perfect" Alibi', 5, DATE '1987-10-30', 'R', 112, 2.99, 990021,
      'She said "I was home all night", and the parrot said otherwise.'),
  (6, '🍿 Midnight Snack', 9, DATE '2021-10-31', 'PG', 79, 5.99, 9007199254740993,
      'A horror-comedy about a haunted vending machine. 🍕🎬👻 Went viral: the view counter is past 2^53.'),
  (7, 'Rain, Wind, and Other Weather', 7, DATE '2008-04-01', 'G', 93, 2.99, 310002,
      'Rain, wind, snow, hail, and, eventually, sunshine.'),
  (8, 'Letters', 10, DATE '1994-01-21', 'PG', 131, 1.99, 77450,
      'Dear Marta,' || chr(10) || 'The winter was long and the letters were short.' || chr(10) || 'Yours, J.'),
  (9, 'Seoul Station 서울역', 4, DATE '2016-07-20', 'R', 118, 4.99, 18014398509481985,
      'Zombies on the last train. 기차가 곧 출발합니다.'),
  (10, 'The Wedding Planner of Chennai', 8, DATE '2011-12-02', 'PG', 126, 3.99, 1544090,
      'Four weddings, one planner, no sleep.'),
  (11, 'A Trip to the Moon (Restored)', 12, DATE '1902-09-01', 'G', 14, 0.00, 3020,
      'A public-domain silent short, restored frame by frame. Free to rent.'),
  (12, 'Untitled Heist Project', 6, NULL, NULL, NULL, 9.99, NULL, NULL),  -- announced, not released
  (13, 'Lagos After Dark', 9, DATE '2020-05-29', 'R', 109, 4.49, 402877,
      'A DJ, a stolen laptop, and one very long night in Lagos.'),
  (14, 'The Long Goodbye, Again', 2, DATE '2001-09-09', 'PG-13', 142, 2.99, 120455,
      'A sequel nobody asked for, and everybody watched.'),
  (15, 'Midsommar Light', 7, DATE '2014-06-20', 'PG-13', 101, 3.49, 233190,
      'Sun at midnight; nobody sleeps; somebody confesses.'),
  (16, 'Saudade', 11, DATE '2023-03-03', NULL, 95, 5.99, 12034,
      'A feeling you can''t quite translate. Saudade é isso.'),
  (17, 'Kraków, 1989', 10, DATE '1999-11-09', 'R', 117, 2.99, 98211,
      'Students, a printing press, and the autumn everything changed.'),
  (18, 'ليلة القمر', 12, DATE '2017-09-05', 'PG', 84, 3.49, 45012,
      'Night of the Moon: a right-to-left title. ليلة هادئة في القاهرة.'),
  (19, 'Paper Tigers', 4, DATE '2010-03-12', 'PG-13', 99, 2.49, 670320,
      'Three office workers start a very small revolution.'),
  (20, 'The Collector''s Box Set', 5, DATE '2005-12-01', 'R', 612, 129.99, 1803,
      'Five films, one box, director''s commentary on every disc.'),
  (21, 'Tabs & Spaces', 6, DATE '2022-08-19', 'PG', 90, 4.99, 88001,
      'Columns' || chr(9) || 'separated' || chr(9) || 'by' || chr(9) || 'tabs; a romance between two programmers.'),
  (22, 'Blank Page', 11, DATE '2023-01-12', 'G', 71, 5.49, 2001,
      ''),  -- an empty description, not a NULL one
  (23, 'Ghosts of Kyoto 京都', 3, DATE '2018-10-26', 'R', 106, 4.49, 1102090,
      'Temple bells, a rented kimono, and a guest who checked in in 1952.'),
  (24, 'Iron Lungs', 9, DATE '2015-04-17', 'NC-17', 123, 3.99, 54322,
      'A boxer, a debt, and a promoter who says "trust me" too often.'),
  (25, 'Northern Lights, Southern Hearts', 7, DATE '1996-02-09', 'PG', 110, 1.99, 220014,
      'A Swedish meteorologist, an Argentine tango teacher, one winter.'),
  (26, 'The Grandmother Protocol', 8, DATE '2019-11-22', 'PG', 118, 3.99, 3300120,
      'Spy thriller, except the spy is 81 and nobody suspects her.'),
  (27, 'Ñandú', 11, DATE '2021-05-07', 'G', 66, 2.99, 17780,
      'A documentary about a bird that cannot fly and does not care.'),
  (28, 'Static', 2, DATE '1979-08-03', 'R', 97, 1.49, 11209,
      'A radio operator hears a voice that should not be there.'),
  (29, 'Hôtel Étoile', 1, DATE '2009-02-27', 'PG-13', 115, 2.99, 410998,
      'Room 12 costs €120 a night, breakfast not included.'),
  (30, 'Robots Don''t Cry', 4, DATE '2022-04-08', 'PG-13', 102, 6.99, 75510,
      'An elder-care robot learns what "I''m fine" really means.'),
  (31, 'Salt & Pepper', 6, DATE '2013-05-10', 'PG', 92, 2.99, 501223,
      'Two rival food trucks, one parking spot.'),
  (32, 'Bollywood Nights', 8, DATE '2007-10-12', 'PG', 162, 2.49, 2050300,
      'Seven songs, three villains, one train station.'),
  (33, 'The Archive', 10, DATE '2016-01-29', 'PG', 128, 3.49, 60401,
      'Documents, microfilm, and a name crossed out in 1953.'),
  (34, 'Penguins of Patagonia 🐧', 12, DATE '2020-12-18', 'G', 58, 2.99, 932018,
      'Narrated by nobody in particular; filmed by a very patient crew.'),
  (35, 'Nine Lives', 5, DATE '1991-06-28', 'R', 104, 1.99, 144560,
      'A cat burglar; an actual cat; nine heists.'),
  (36, 'Glass Houses', 1, DATE '2017-03-24', 'R', 119, 3.99, 288140,
      'Neighbours with nothing to hide, until there is.'),
  (37, 'Snowbound', 7, DATE '2002-12-20', 'PG', 94, 1.99, 178002,
      'Twelve strangers, one stranded night bus, zero phone signal.'),
  (38, 'Orbit 2049', 4, DATE '2023-09-29', 'PG-13', 137, 6.49, 4402001,
      'A cargo pilot, a broken AI, and 400 km of empty sky.'),
  (39, 'Mama''s Kitchen "Secret" Recipes', 9, DATE '2018-03-09', 'G', 81, 2.49, 77019,
      'Jollof, egusi, puff-puff; measurements given as "enough".'),
  (40, 'The Last Reel', 2, DATE '1968-05-17', 'PG', 99, 0.99, 30882,
      'A projectionist''s final night before the cinema closes.');

INSERT INTO film_genres VALUES
  (1, 1), (1, 2),
  (2, 4), (2, 1),
  (3, 1), (3, 5),
  (4, 4), (4, 2),
  (5, 5),
  (6, 3), (6, 2),
  (7, 6),
  (8, 1), (8, 4),
  (9, 3), (9, 5),
  (10, 2), (10, 4),
  (11, 7),
  (12, 5),
  (13, 5), (13, 1),
  (14, 1),
  (15, 1), (15, 3),
  (16, 1),
  (17, 1),
  (18, 1), (18, 4),
  (19, 2),
  (20, 5),
  (21, 4), (21, 2),
  (22, 8),
  (23, 3),
  (24, 1),
  (25, 4),
  (26, 5), (26, 2),
  (27, 6),
  (28, 3), (28, 7),
  (29, 1), (29, 2),
  (30, 7), (30, 1),
  (31, 2),
  (32, 2), (32, 4),
  (33, 6),
  (34, 6), (34, 8),
  (35, 5), (35, 2),
  (36, 5),
  (37, 1), (37, 5),
  (38, 7),
  (39, 6),
  (40, 1);

INSERT INTO customers VALUES
  (1, 'Alice', 'Martin', 'alice.martin@example.com', 'France', DATE '1988-02-11', TIMESTAMPTZ '2023-01-05 09:12:44+01', true),
  (2, 'Bob', 'O''Brien', 'bob.o''brien@example.com', 'Ireland', DATE '1975-07-30', TIMESTAMPTZ '2023-01-09 18:03:10+00', true),
  (3, 'Chloé', 'Lefèvre', 'chloe.lefevre@example.fr', 'France', DATE '1999-12-31', TIMESTAMPTZ '2023-02-14 20:45:00+01', true),
  (4, '太郎', '佐藤', 'taro.sato@example.jp', 'Japan', DATE '1992-04-01', TIMESTAMPTZ '2023-02-28 23:59:59+09', true),
  (5, 'Diego', 'Fernández', NULL, 'Argentina', NULL, TIMESTAMPTZ '2023-03-12 14:30:00-03', true),
  (6, 'Emma', 'Schmidt', 'emma.schmidt@example.de', 'Germany', DATE '1985-09-23', TIMESTAMPTZ '2023-03-26 03:30:00+02', true),
  (7, 'Łukasz', 'Żółć', 'lukasz.zolc@example.pl', 'Poland', DATE '1979-01-15', TIMESTAMPTZ '2023-04-02 11:11:11.123456+02', true),
  (8, 'Fatima', 'Al-Sayed', 'fatima@example.org', 'Egypt', DATE '2001-06-06', TIMESTAMPTZ '2023-04-18 08:00:00+02', true),
  (9, 'George', 'Washington-Smith', 'gws@example.com', 'United States', DATE '1960-07-04', TIMESTAMPTZ '2023-05-01 07:15:00-07', false),
  (10, '민서', '이', 'minseo.lee@example.kr', 'South Korea', DATE '1997-10-09', TIMESTAMPTZ '2023-05-20 21:00:00+09', true),
  (11, 'Hannah', 'Müller', 'hannah.mueller@example.de', 'Germany', NULL, TIMESTAMPTZ '2023-06-01 12:00:00+02', true),
  (12, 'Ivan', 'Petrov', NULL, NULL, NULL, TIMESTAMPTZ '2023-06-15 16:45:30+03', false),
  (13, 'Jade', 'D''Angelo', 'jade.dangelo@example.it', 'Italy', DATE '1983-03-03', TIMESTAMPTZ '2023-07-04 10:10:10+02', true),
  (14, 'Kwame', 'Mensah', 'kwame.mensah@example.com', 'Ghana', DATE '1990-11-30', TIMESTAMPTZ '2023-07-21 19:20:00+00', true),
  (15, 'Lucía', 'García', 'lucia.garcia@example.es', 'Spain', DATE '1994-08-08', TIMESTAMPTZ '2023-08-08 08:08:08+02', true),
  (16, 'Mei', '王', 'mei.wang@example.cn', 'China', DATE '1989-05-04', TIMESTAMPTZ '2023-08-30 13:37:00+08', true),
  (17, 'Noah', 'Johnson', 'noah.j@example.com', 'Canada', DATE '2003-02-02', TIMESTAMPTZ '2023-09-10 22:05:00-04', true),
  (18, 'Olivia', 'Brown', 'olivia.brown@example.co.uk', 'United Kingdom', DATE '1970-12-12', TIMESTAMPTZ '2023-10-29 01:30:00+00', true),
  (19, 'Pedro', 'Gonçalves', 'pedro.goncalves@example.br', 'Brazil', DATE '1986-06-18', TIMESTAMPTZ '2023-11-02 17:00:00-03', true),
  (20, 'Quinn', 'Taylor', 'quinn "q" taylor <quinn@example.com>', 'Australia', DATE '1995-01-26', TIMESTAMPTZ '2023-11-15 06:30:00+11', true),
  (21, 'Rania', 'Haddad', 'rania.haddad@example.org', 'Lebanon', DATE '1991-09-14', TIMESTAMPTZ '2023-12-01 09:45:00+02', true),
  (22, 'Sven', 'Lindqvist', 'sven.lindqvist@example.se', 'Sweden', DATE '1968-04-30', TIMESTAMPTZ '2023-12-24 15:00:00+01', false),
  (23, 'Tomás', 'Ó Súilleabháin', 'tomas@example.ie', 'Ireland', DATE '1982-03-17', TIMESTAMPTZ '2023-12-31 23:00:00-01', true),
  (24, 'Uma', 'Krishnan', 'uma.krishnan@example.in', 'India', DATE '1998-10-24', TIMESTAMPTZ '2023-01-15 10:30:00+05:30', true),
  (25, 'Viktor', 'Novák', 'viktor.novak@example.cz', 'Czechia', NULL, TIMESTAMPTZ '2020-02-29 12:00:00+01', true),
  (26, 'Wanjiru', 'Kamau', 'wanjiru.kamau@example.ke', 'Kenya', DATE '1993-12-12', TIMESTAMPTZ '2023-03-31 03:00:00+03', true),
  (27, 'Xavier', 'Dupont', '', 'Belgium', DATE '1977-07-07', TIMESTAMPTZ '2023-05-05 05:05:05+02', true),
  (28, 'Yuki', '田中', 'yuki.tanaka@example.jp', 'Japan', DATE '2000-01-01', TIMESTAMPTZ '2023-06-21 18:00:00+09', true),
  (29, 'Zara', 'Ahmed 😀', 'zara.ahmed@example.com', 'Pakistan', DATE '1996-05-25', TIMESTAMPTZ '2023-08-12 14:14:14+05', true),
  (30, 'Zoë', 'Nguyễn', 'zoe.nguyen@example.vn', 'Vietnam', DATE '2004-04-04', TIMESTAMPTZ '2024-12-30 23:00:00+07', true);  -- signed up, never rented

-- 2,500 rentals over 2024, from integer arithmetic on the row number: about
-- seven a day while the shop is open (10:00 to 22:00). Popularity is uneven
-- but fixed: a film's and a customer's share come from two different
-- multiplicative hashes of the row number pushed through a convex curve, so
-- the busiest film is rented about three times as often as the quietest and
-- the busiest customer about seven times as often. Customers 1 to 29 rent
-- (30 never does); every released film is rented, the unreleased one never.
-- A rental is due three days after the day it started; late returns pay 1.50
-- a day. The shop's clocks run on UTC, so rented_at and returned_at compare
-- directly. Every 97th rental was never returned, and the last thirty are
-- still out.
INSERT INTO rentals
WITH rentable AS (
  SELECT id, price, row_number() OVER (ORDER BY id) - 1 AS n, count(*) OVER () AS total
  FROM films
  WHERE release_date IS NOT NULL
),
seq AS (
  SELECT
    i,
    -- seconds since 2024-01-01 00:00 when the rental started
    (i * 146 // 1000) * 86400 + 36000 + (i * 7919) % 43200 AS start_s,
    -- seconds the film stayed out: 0 to 5 days and some hours
    (i * 37 % 6) * 86400 + (i * 4099) % 50000 AS loan_s,
    i % 97 = 0 OR i > 2470 AS still_out,
    -- two hashes in [0, 10007): which film, which customer
    (i * 2654435761) % 10007 AS fu,
    (i * 40503 + 12345) % 10007 AS cu
  FROM range(1, 2501) AS r(i)
),
picked AS (
  SELECT
    *,
    -- rank on the curve (x + x^2) / 2: the first rank 1.5 / 0.5 = 3 times the last
    fu * (fu + 10007) AS film_curve,
    -- rank on (x + 3 x^2) / 4: the first rank 1.75 / 0.25 = 7 times the last
    cu * (10007 + 3 * cu) AS customer_curve
  FROM seq
)
SELECT
  s.i AS id,
  -- permuted (x 11 mod 29) so the busiest customers are not simply the first ids
  ((s.customer_curve * 29) // (4 * 10007 * 10007) * 11) % 29 + 1 AS customer_id,
  f.id AS film_id,
  TIMESTAMP '2024-01-01 00:00:00' + to_seconds(s.start_s) AS rented_at,
  CAST(TIMESTAMP '2024-01-01 00:00:00' + to_seconds(s.start_s) AS DATE) + 3 AS due_date,
  CASE WHEN NOT s.still_out THEN to_timestamp(1704067200 + s.start_s + s.loan_s) END AS returned_at,
  f.price AS amount,
  CASE WHEN NOT s.still_out THEN CAST(1.50 * greatest(0,
    CAST(TIMESTAMP '2024-01-01 00:00:00' + to_seconds(s.start_s + s.loan_s) AS DATE)
    - (CAST(TIMESTAMP '2024-01-01 00:00:00' + to_seconds(s.start_s) AS DATE) + 3)) AS DECIMAL(6, 2)) END AS late_fee
FROM picked AS s
-- permuted (x 17 mod total) so the most rented films are not simply the first ids
JOIN rentable AS f ON f.n = ((s.film_curve * f.total) // (2 * 10007 * 10007) * 17) % f.total
ORDER BY s.i;

COMMENT ON TABLE genres IS 'Film genres. A film can have several (see film_genres); one genre has no film.';
COMMENT ON COLUMN genres.id IS 'Genre id.';
COMMENT ON COLUMN genres.name IS 'Display name, unique.';
COMMENT ON COLUMN genres.description IS 'One-line description; NULL when there is none.';

COMMENT ON TABLE directors IS 'Film directors (made up). The last one is unknown: NULL country, birth date and bio.';
COMMENT ON COLUMN directors.id IS 'Director id.';
COMMENT ON COLUMN directors.name IS 'Full name as credited, in its own script.';
COMMENT ON COLUMN directors.country IS 'Country the director mainly works in.';
COMMENT ON COLUMN directors.birth_date IS 'Date of birth.';
COMMENT ON COLUMN directors.bio IS 'Short biography.';

COMMENT ON TABLE films IS 'The catalogue: one row per film that can be (or will be) rented.';
COMMENT ON COLUMN films.id IS 'Film id.';
COMMENT ON COLUMN films.title IS 'Title as released; may contain quotes, commas, accents, CJK, Arabic or emoji.';
COMMENT ON COLUMN films.director_id IS 'The director (directors.id).';
COMMENT ON COLUMN films.release_date IS 'First release date; NULL for a film announced but not released.';
COMMENT ON COLUMN films.rating IS 'Audience rating: G, PG, PG-13, R or NC-17; NULL when unrated.';
COMMENT ON COLUMN films.length_minutes IS 'Running time in minutes.';
COMMENT ON COLUMN films.price IS 'Rental price in euros, exact to the cent.';
COMMENT ON COLUMN films.views IS 'Streaming views, all time. Two films are past 2^53: read this as a 64-bit integer, not a double.';
COMMENT ON COLUMN films.description IS 'Synopsis. Empty for one film, NULL for another; may span several lines.';

COMMENT ON TABLE film_genres IS 'Which genres each film belongs to (many to many).';
COMMENT ON COLUMN film_genres.film_id IS 'The film (films.id).';
COMMENT ON COLUMN film_genres.genre_id IS 'The genre (genres.id).';

COMMENT ON TABLE customers IS 'People with a rental account. Customer 30 has never rented anything.';
COMMENT ON COLUMN customers.id IS 'Customer id.';
COMMENT ON COLUMN customers.first_name IS 'Given name.';
COMMENT ON COLUMN customers.last_name IS 'Family name.';
COMMENT ON COLUMN customers.email IS 'The customer''s e-mail address; NULL when not given, empty when left blank.';
COMMENT ON COLUMN customers.country IS 'Country of residence.';
COMMENT ON COLUMN customers.birth_date IS 'Date of birth, when the customer gave it.';
COMMENT ON COLUMN customers.signed_up_at IS 'When the account was created: an instant (timestamp with time zone).';
COMMENT ON COLUMN customers.active IS 'False once the account is closed.';

COMMENT ON TABLE rentals IS 'One row per film rented in 2024. Rentals still out have no return time and no late fee.';
COMMENT ON COLUMN rentals.id IS 'Rental id, in the order the rentals happened.';
COMMENT ON COLUMN rentals.customer_id IS 'Who rented it (customers.id).';
COMMENT ON COLUMN rentals.film_id IS 'What was rented (films.id).';
COMMENT ON COLUMN rentals.rented_at IS 'The shop''s wall-clock time at checkout: a timestamp without time zone.';
COMMENT ON COLUMN rentals.due_date IS 'Due back by the end of this day: three days after the rental day.';
COMMENT ON COLUMN rentals.returned_at IS 'When the return was scanned: an instant (timestamp with time zone); NULL while the film is still out.';
COMMENT ON COLUMN rentals.amount IS 'Price paid for the rental, in euros.';
COMMENT ON COLUMN rentals.late_fee IS 'Late fee in euros, 1.50 per day past the due date; NULL while the film is still out.';
