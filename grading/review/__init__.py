"""Result review: jury totals against automatic scores, medals, criterion difficulty, agreement."""
