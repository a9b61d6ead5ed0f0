module Main (main) where

import Data.List (foldl')

fib :: Int -> Integer
fib n = if n < 2 then toInteger n else fib (n - 1) + fib (n - 2)

squares :: Int -> [Int]
squares n = [i * i | i <- [1 .. n]]

total :: [Int] -> Int
total = foldl' (+) 0

main :: IO ()
main = do
  print (fib 27)
  print (total (squares 3000000))
