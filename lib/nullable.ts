/** T as a Postgres row holds it: every field present, null where T leaves an optional one out. */
export type Nullable<T> = { [K in keyof T]-?: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K] };
