import type { CreateKeyFields } from '../keys/fields.ts';
import type { CreateFields as CreateQueryFields } from '../queries/fields.ts';
import type { CreateRoleFields } from '../roles/fields.ts';

/**
 * What POST /api/v1/examples installs: a small tour of the product over the
 * bundled dataset (origin/examples/dataset.sql, served as the connection
 * `examples`). Every name starts with `example` so a tour rarely meets a
 * name of the operator's own; when it does, the install is refused whole
 * (409 `examples_conflict`). docs/reference/examples.md shows each object.
 */

export const EXAMPLES_CONNECTION = 'examples';
export const CATALOGUE = 'example-catalogue';
export const RENTALS = 'example-rentals';

/** Published at once, each on the bundled connection; one per kind of parameter rule, one cached. */
export const TOUR_QUERIES: CreateQueryFields[] = [
  {
    name: 'example_films_by_rating',
    collection: CATALOGUE,
    description: 'Films of one audience rating (an enum rule).',
    sql: 'select id, title, release_date, price from films where rating = :rating order by id',
    parameters: { rating: { type: 'string', enum: ['G', 'PG', 'PG-13', 'R', 'NC-17'], description: 'Audience rating' } },
    tags: ['example'],
  },
  {
    name: 'example_films_longer_than',
    collection: CATALOGUE,
    description: 'Films running at least so many minutes (a bounded integer with a default).',
    sql: 'select id, title, length_minutes from films where length_minutes >= :minutes order by length_minutes desc, id',
    parameters: { minutes: { type: 'integer', min: 1, max: 600, default: 120, description: 'Shortest running time, in minutes' } },
    tags: ['example'],
  },
  {
    name: 'example_top_films',
    collection: CATALOGUE,
    description: 'The ten most rented films and what they earned (cached for 5 minutes).',
    sql:
      'select f.title, count(*) as rentals, sum(r.amount) as revenue from rentals r join films f on f.id = r.film_id ' +
      'group by f.title order by rentals desc, f.title limit 10',
    cache_ttl: 300,
    tags: ['example'],
  },
  {
    name: 'example_customers_by_country',
    collection: RENTALS,
    description: 'Customers living in one country (a pattern rule).',
    sql: 'select id, first_name, last_name, country from customers where country = :country order by id',
    parameters: { country: { type: 'string', pattern: '[A-Z][A-Za-z ]{1,39}', description: 'Country name in English, capitalised' } },
    tags: ['example'],
  },
  {
    name: 'example_rentals_by_month',
    collection: RENTALS,
    description: 'Rentals, revenue and late fees per month of 2024.',
    sql:
      "select strftime(date_trunc('month', rented_at), '%Y-%m') as month, count(*) as rentals, sum(amount) as revenue, " +
      'sum(late_fee) as late_fees from rentals group by month order by month',
    tags: ['example'],
  },
].map((query) => ({ ...query, connection_name: EXAMPLES_CONNECTION, publish: true }));

/** A template reaching the whole tour: a key made from it (POST /api/v1/api-keys with `role`) gets both collections. */
export const TOUR_ROLES: CreateRoleFields[] = [{ name: 'example_reader', collections: [CATALOGUE, RENTALS] }];

/** One key per collection; their secrets are shown once, by the install that makes them. */
export const TOUR_KEYS: CreateKeyFields[] = [
  { name: 'example_catalogue_key', collections: [CATALOGUE] },
  { name: 'example_rentals_key', collections: [RENTALS] },
];

export const TOUR_COLLECTIONS = [CATALOGUE, RENTALS];
