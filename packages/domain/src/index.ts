/** Pure ledger rules shared by the api and the billing worker. */
export {};
