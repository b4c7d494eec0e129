-- ---------------------------------------------------------------------------------------------------
-- The default categories a Korean household ledger starts with (decision A8, issue 36): two levels, income
-- and expense, so that a new member's `POST /api/account/categories/import` gives a usable tree and the first
-- entry needs no other setup. Seeded only into an installation that has no default categories yet; admins
-- edit them afterwards as before (`/api/admin/default-categories`). One statement: the top-level rows are
-- inserted first and the sub-categories are placed under them by name.
-- ---------------------------------------------------------------------------------------------------
with seed(name, type, parent, position) as (
  values
    ('식비', 'EXPENSE', null, 0),
      ('장보기', 'EXPENSE', '식비', 0),
      ('외식', 'EXPENSE', '식비', 1),
      ('배달', 'EXPENSE', '식비', 2),
      ('카페', 'EXPENSE', '식비', 3),
      ('간식', 'EXPENSE', '식비', 4),
    ('주거·통신', 'EXPENSE', null, 1),
      ('월세·관리비', 'EXPENSE', '주거·통신', 0),
      ('공과금', 'EXPENSE', '주거·통신', 1),
      ('통신비', 'EXPENSE', '주거·통신', 2),
      ('인터넷·TV', 'EXPENSE', '주거·통신', 3),
    ('생활', 'EXPENSE', null, 2),
      ('생활용품', 'EXPENSE', '생활', 0),
      ('가구·가전', 'EXPENSE', '생활', 1),
      ('세탁·수선', 'EXPENSE', '생활', 2),
    ('교통·차량', 'EXPENSE', null, 3),
      ('대중교통', 'EXPENSE', '교통·차량', 0),
      ('택시', 'EXPENSE', '교통·차량', 1),
      ('주유', 'EXPENSE', '교통·차량', 2),
      ('주차·통행료', 'EXPENSE', '교통·차량', 3),
      ('차량정비', 'EXPENSE', '교통·차량', 4),
    ('쇼핑', 'EXPENSE', null, 4),
      ('의류', 'EXPENSE', '쇼핑', 0),
      ('잡화', 'EXPENSE', '쇼핑', 1),
      ('미용', 'EXPENSE', '쇼핑', 2),
    ('의료·건강', 'EXPENSE', null, 5),
      ('병원', 'EXPENSE', '의료·건강', 0),
      ('약국', 'EXPENSE', '의료·건강', 1),
      ('운동', 'EXPENSE', '의료·건강', 2),
    ('교육·육아', 'EXPENSE', null, 6),
      ('학원·강의', 'EXPENSE', '교육·육아', 0),
      ('도서', 'EXPENSE', '교육·육아', 1),
      ('육아용품', 'EXPENSE', '교육·육아', 2),
    ('문화·여가', 'EXPENSE', null, 7),
      ('영화·공연', 'EXPENSE', '문화·여가', 0),
      ('여행', 'EXPENSE', '문화·여가', 1),
      ('취미', 'EXPENSE', '문화·여가', 2),
      ('구독서비스', 'EXPENSE', '문화·여가', 3),
    ('경조사·선물', 'EXPENSE', null, 8),
      ('경조사비', 'EXPENSE', '경조사·선물', 0),
      ('선물', 'EXPENSE', '경조사·선물', 1),
    ('금융', 'EXPENSE', null, 9),
      ('보험료', 'EXPENSE', '금융', 0),
      ('대출이자', 'EXPENSE', '금융', 1),
      ('세금', 'EXPENSE', '금융', 2),
      ('수수료', 'EXPENSE', '금융', 3),
    ('기타지출', 'EXPENSE', null, 10),
    ('급여', 'INCOME', null, 0),
      ('월급', 'INCOME', '급여', 0),
      ('상여금', 'INCOME', '급여', 1),
    ('사업소득', 'INCOME', null, 1),
    ('금융소득', 'INCOME', null, 2),
      ('예금이자', 'INCOME', '금융소득', 0),
      ('배당금', 'INCOME', '금융소득', 1),
    ('용돈', 'INCOME', null, 3),
    ('부수입', 'INCOME', null, 4),
      ('중고거래', 'INCOME', '부수입', 0),
      ('환급', 'INCOME', '부수입', 1),
    ('기타수입', 'INCOME', null, 5)
), tops as (
  insert into default_category (name, type, sort_order)
  select name, type::ledger_type, position from seed
   where parent is null and not exists (select 1 from default_category)
  returning id, name, type
)
insert into default_category (name, type, parent_id, sort_order)
select s.name, s.type::ledger_type, t.id, s.position
  from seed s join tops t on t.name = s.parent and t.type = s.type::ledger_type;
