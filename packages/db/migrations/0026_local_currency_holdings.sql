-- ---------------------------------------------------------------------------------------------------
-- A holding created with the local currency named explicitly (`"currency": "KRW"`) was kept as a foreign
-- holding: prices with 4 fractional digits and a `foreignTotals` row of its own. Such holdings are now
-- local (currency null, decision L39). Moved here only where every trade's price and fee is whole, as a
-- local holding's must be; the others stay as they are (the member can still change their currency).
-- ---------------------------------------------------------------------------------------------------
update investment_holding as holding
set currency = null, updated_at = now()
where holding.currency = 'KRW'
  and not exists (
    select 1
    from investment_trade as trade
    where trade.member_id = holding.member_id
      and trade.holding_id = holding.id
      and (trade.price <> trunc(trade.price) or trade.fee <> trunc(trade.fee))
  );
